import Foundation
import LuaKit
import Testing

/// A file that cannot be read says why in the system's terms: a name too long and a loop of
/// links were both said to be "permission denied?".
@Suite struct LuaSourceFileReasonsTests {
  @Test func eachReasonIsItsOwn() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "source-reasons-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
    defer { try? FileManager.default.removeItem(at: folder) }
    try FileManager.default.createSymbolicLink(
      atPath: folder.appendingPathComponent("loop.lua").path, withDestinationPath: "loop.lua")
    let cases: [(URL, String)] = [
      (folder.appendingPathComponent("loop.lua"), "too many symbolic links on the way (a loop?)"),
      (
        folder.appendingPathComponent(String(repeating: "a", count: 300) + ".lua"),
        "its name is too long for the system"
      ),
      (folder.appendingPathComponent("missing.lua"), "no such file"),
      (folder, "it is a directory; give the .lua file"),
    ]
    for (url, reason) in cases {
      #expect(throws: LuaSourceFile.Unreadable.self) { try LuaSourceFile.bytes(of: url) }
      do {
        _ = try LuaSourceFile.bytes(of: url)
      } catch {
        #expect(error.reason == reason, "\(url.lastPathComponent)")
      }
    }
  }
}
