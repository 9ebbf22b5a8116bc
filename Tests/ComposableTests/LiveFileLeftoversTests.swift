import Composable
import Foundation
import Testing

/// A process killed between making a write's temporary file and renaming it left the file
/// there for good (`.NAME.UUID.tmp`), one more at each kill (an attacker's finding). A write
/// removes the leftovers of its own file whose process is gone, and nothing else.
@Suite struct LiveFileLeftoversTests {
  /// A process ID no process has: above the kernel's largest (4,194,304).
  static let gone: Int32 = 0x7FFF_FFF0

  @Test func aWriteRemovesTheLeftoversOfItsFileWhoseProcessIsGone() async throws {
    let root = FileManager.default.temporaryDirectory
      .appendingPathComponent("leftovers-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: root) }
    let old = Date().addingTimeInterval(-3600)
    func make(_ name: String, modified: Date = old, directory: Bool = false) throws {
      let url = root.appendingPathComponent(name)
      if directory {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
      } else {
        try Data("half a state".utf8).write(to: url)
      }
      try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: url.path)
    }
    let uuid = { UUID().uuidString }
    let removed = [
      ".state.lua.\(Self.gone).\(uuid()).tmp",  // its process is gone
      ".state.lua.\(uuid()).tmp",  // named before the process was: long gone
    ]
    let kept = [
      ".state.lua.\(Self.gone).\(uuid()).tmp",  // too new: maybe a process not seen from here
      ".state.lua.\(getpid()).\(uuid()).tmp",  // a process that is there (this one)
      ".state.lua.\(getppid()).\(uuid()).tmp",
      ".other.lua.\(Self.gone).\(uuid()).tmp",  // another file's: its own write removes it
      ".state.lua.x.\(Self.gone).\(uuid()).tmp",  // the file `state.lua.x`'s
      ".state.lua.\(Self.gone).not-a-uuid.tmp",
      ".state.lua.-1.\(uuid()).tmp",
      "state.lua.\(Self.gone).\(uuid()).tmp",  // not hidden: not one of ours
      ".state.lua.\(Self.gone).\(uuid()).tmp.bak",
    ]
    for name in removed { try make(name) }
    try make(kept[0], modified: Date())
    for name in kept.dropFirst() { try make(name) }
    let folder = ".state.lua.\(Self.gone).\(uuid()).tmp"
    try make(folder, directory: true)  // not a file: left

    let files = FileClient.live(root: root)
    try await files.write("state.lua", Array("return {}".utf8))
    let after = Set(try FileManager.default.contentsOfDirectory(atPath: root.path))
    #expect(after == Set(kept + [folder, "state.lua"]))
    #expect(try await files.read("state.lua") == Array("return {}".utf8))
  }
}
