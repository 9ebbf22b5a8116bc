import Foundation
import TestSupport
import Testing

/// Attacks on how `composable test` names files in failures (LuaTestPath): the name must be one
/// that opens the file that failed, and nothing else in a message may be rewritten.
@Suite struct TestPathAttackTests {
  /// A test that fails with an error Lua raises itself: its position and traceback are Lua's,
  /// which cut a name longer than 59 bytes to "..." and its last 56.
  static let raising = """
    describe("d", function() it("fails", function() local x; x.y = 1 end) end)
    """

  static func write(_ text: String, to file: URL) throws {
    try FileManager.default.createDirectory(
      at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    try text.write(to: file, atomically: false, encoding: .utf8)
  }

  /// A long path of multi-byte names, where Lua's cut falls inside a character: the failure
  /// must name the file whole, not "..." and a broken character (U+FFFD).
  @Test func aLongUnicodePathCutInsideACharacterIsWrittenWhole() throws {
    let root = try makeTemporaryDirectory("test-paths-unicode")
    defer { try? FileManager.default.removeItem(at: root) }
    let relative = String(repeating: "ディレクトリ/", count: 6) + "uni_test.lua"
    // The 56 bytes Lua keeps start inside a character.
    #expect(String(validating: Array(relative.utf8).suffix(56), as: UTF8.self) == nil)
    try Self.write(Self.raising, to: root.appendingPathComponent(relative))
    let outcome = try Command.run(["test", relative], in: root)
    #expect(outcome.status == 1)
    #expect(outcome.output.contains(relative + ":1: attempt to index"), "\(outcome.output)")
    #expect(!outcome.output.contains("\u{FFFD}"), "\(outcome.output)")
  }

  /// A folder whose name ends in "..." just where Lua's cut falls: the path itself holds the
  /// form Lua shortens it to, and a failure naming it whole must not be "restored" again
  /// (it read "waitwait.../...").
  @Test func aPathHoldingItsOwnShortenedFormIsNotRewritten() throws {
    let root = try makeTemporaryDirectory("test-paths-dots")
    defer { try? FileManager.default.removeItem(at: root) }
    let relative = "wait.../dirdirdir/dirdirdir/dirdirdir/dirdirdir/abcdef_test.lua"
    #expect(relative.utf8.count == 63)
    try Self.write(
      #"describe("d", function() it("fails", function() assert.equal(1, 2) end) end)"#,
      to: root.appendingPathComponent(relative))
    let outcome = try Command.run(["test", relative], in: root)
    #expect(outcome.status == 1)
    #expect(outcome.output.contains("\n    " + relative + ":1:"), "\(outcome.output)")
    #expect(!outcome.output.contains("waitwait"), "\(outcome.output)")
  }

  /// A value the test compares that holds "..." and the end of the test's own long path is
  /// the test's data, not a name Lua cut: the failure must show it as it is.
  @Test func aComparedValueLookingLikeAShortenedPathIsShownAsItIs() throws {
    let root = try makeTemporaryDirectory("test-paths-value")
    defer { try? FileManager.default.removeItem(at: root) }
    let relative = String(repeating: "dirdirdir/", count: 6) + "a_test.lua"
    let tail = String(relative.utf8.suffix(56))!
    let expected = "see ..." + tail
    try Self.write(
      #"describe("d", function() it("fails", function() assert.equal("\#(expected)", "other") end) end)"#,
      to: root.appendingPathComponent(relative))
    for format in ["readable", "tap", "junit"] {
      let outcome = try Command.run(["test", relative, "--output", format], in: root)
      #expect(outcome.status == 1)
      #expect(outcome.output.contains(expected), "\(format): \(outcome.output)")
    }
  }

  /// `a/link/../t_test.lua`, with `link` a symlink to a folder elsewhere, is the file beside
  /// the link's target (as the kernel, `cat` and `lua5.4` read it), not `a/t_test.lua`: the run
  /// must test that file, and name a path that opens it. (It ran `a/t_test.lua`, which passes.)
  @Test func aDotDotAfterASymlinkIsTheFileTheKernelOpens() throws {
    let root = try makeTemporaryDirectory("test-paths-link")
    defer { try? FileManager.default.removeItem(at: root) }
    try Self.write(Self.raising, to: root.appendingPathComponent("real/deep/t_test.lua"))
    try Self.write(
      #"describe("top", function() it("passes", function() end) end)"#,
      to: root.appendingPathComponent("t_test.lua"))
    try FileManager.default.createDirectory(
      at: root.appendingPathComponent("real/deep/dir"), withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      atPath: root.appendingPathComponent("link").path, withDestinationPath: "real/deep/dir")
    let outcome = try Command.run(["test", "link/../t_test.lua"], in: root)
    #expect(outcome.status == 1, "\(outcome.output)")
    #expect(outcome.output.contains("attempt to index"), "\(outcome.output)")
  }

  /// Two folders whose names are the same text, one composed (U+00E9) and one decomposed
  /// (e U+0301): on Linux they are two folders. Run from the decomposed one, a failing test in
  /// the composed one must not be named "t_test.lua", which opens the other folder's file.
  @Test func aFolderCanonicallyEquivalentToTheCurrentOneIsNotIt() throws {
    let root = try makeTemporaryDirectory("test-paths-nfc")
    defer { try? FileManager.default.removeItem(at: root) }
    let composed = root.appendingPathComponent("caf\u{E9}")
    let decomposed = root.appendingPathComponent("cafe\u{301}")
    try Self.write(Self.raising, to: composed.appendingPathComponent("t_test.lua"))
    try Self.write(
      #"describe("other", function() it("passes", function() end) end)"#,
      to: decomposed.appendingPathComponent("t_test.lua"))
    #expect(
      Set(try FileManager.default.contentsOfDirectory(atPath: root.path).map { Array($0.utf8) })
        .count == 2)
    let outcome = try Command.run(
      ["test", composed.appendingPathComponent("t_test.lua").path], in: decomposed)
    #expect(outcome.status == 1)
    #expect(!outcome.output.contains("\n    t_test.lua:1:"), "\(outcome.output)")
  }

  /// Two long paths that end alike (Lua cuts both to the same "...tail"): neither can be told
  /// from the other, so neither may be "restored" to the other's name. (Held.)
  @Test func twoLongPathsEndingAlikeAreNeverSwapped() throws {
    let root = try makeTemporaryDirectory("test-paths-alike")
    defer { try? FileManager.default.removeItem(at: root) }
    let common = String(repeating: "sub/", count: 12) + "x_test.lua"
    let first = "first-folder/" + common, second = "second-folder/" + common
    for path in [first, second] {
      try Self.write(Self.raising, to: root.appendingPathComponent(path))
    }
    let outcome = try Command.run(["test", "first-folder", "second-folder"], in: root)
    #expect(outcome.status == 1)
    let lines = outcome.output.split(separator: "\n").filter { $0.contains("attempt to index") }
    #expect(lines.count == 2, "\(outcome.output)")
    // The first file's failure never names the second's path, nor the reverse.
    #expect(lines.first.map { !$0.contains("second-folder") } == true, "\(outcome.output)")
    #expect(lines.last.map { !$0.contains("first-folder") } == true, "\(outcome.output)")
  }
}
