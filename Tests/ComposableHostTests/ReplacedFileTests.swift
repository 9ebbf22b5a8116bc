import Foundation
import Testing

@testable import ComposableHost

/// A session or a test is written whole or not at all: a signal that ends the process during
/// the write leaves the file as it was and no temporary file beside it, and a test is never
/// written over a file made since it was looked for.
@Suite struct ReplacedFileTests {
  private func folder(_ name: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "replaced-file-\(name)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    return url
  }

  private func names(in folder: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
  }

  @Test(arguments: [true, false])
  func anEndingSignalDuringTheWriteLeavesTheFileAsItWas(replacing: Bool) throws {
    let directory = try folder("signal")
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent(replacing ? "s.lua" : "new_test.lua")
    if replacing { try "old".write(to: file, atomically: false, encoding: .utf8) }
    let ownFolder = directory.path + "/"
    ReplacedFile.beforeRename.withLock {
      $0[file.path] = {
        // What an ending signal does, at the worst moment: the new file is whole, not yet
        // renamed.
        ReplacedFile.removeUnfinished(where: { $0.hasPrefix(ownFolder) })
      }
    }
    defer { _ = ReplacedFile.beforeRename.withLock { $0.removeValue(forKey: file.path) } }
    #expect(throws: (any Error).self) {
      try ReplacedFile.write(Array("new".utf8), to: file, replacing: replacing)
    }
    #expect(try names(in: directory) == (replacing ? ["s.lua"] : []))
    if replacing { #expect(try String(contentsOf: file, encoding: .utf8) == "old") }
  }

  @Test func aWriteWithNoSignalTakesThePlaceAndLeavesNothingBeside() throws {
    let directory = try folder("whole")
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("s.lua")
    try ReplacedFile.write(Array("one".utf8), to: file)
    try ReplacedFile.write(Array("two".utf8), to: file)
    try ReplacedFile.write(
      Array("t".utf8), to: directory.appendingPathComponent("t_test.lua"),
      replacing: false)
    #expect(try names(in: directory) == ["s.lua", "t_test.lua"])
    #expect(try String(contentsOf: file, encoding: .utf8) == "two")
  }

  /// A file made between the check for one and the write (another process, an editor): kept.
  @Test func aNewFileIsNotWrittenOverAFileMadeMeanwhile() throws {
    let directory = try folder("meanwhile")
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("x_test.lua")
    ReplacedFile.beforeRename.withLock {
      $0[file.path] = { try? "theirs".write(to: file, atomically: false, encoding: .utf8) }
    }
    defer { _ = ReplacedFile.beforeRename.withLock { $0.removeValue(forKey: file.path) } }
    let error = #expect(throws: NSError.self) {
      try ReplacedFile.write(Array("ours".utf8), to: file, replacing: false)
    }
    #expect(error?.localizedDescription == "x_test.lua: File exists")
    #expect(try names(in: directory) == ["x_test.lua"])
    #expect(try String(contentsOf: file, encoding: .utf8) == "theirs")
  }
}
