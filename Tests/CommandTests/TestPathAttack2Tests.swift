import Foundation
import TestSupport
import Testing

/// More attacks on how `composable test` finds and names files (LuaTestPath, discover).
@Suite struct TestPathAttack2Tests {
  static let raising = TestPathAttackTests.raising

  /// A folder named `...` holding a test whose name is 59 bytes: Lua writes it whole, and it
  /// is exactly the form ("..." and 56 bytes) Lua shortens another, longer name to
  /// (`-----deep/` and the same file name). The failure of `.../F` is "restored" to the
  /// other file: both failures name `-----deep/F`, and `.../F` is never named.
  @Test func aWholeNameThatLooksShortenedIsNotRewrittenToAnotherFile() throws {
    let root = try makeTemporaryDirectory("test-paths-three-dots")
    defer { try? FileManager.default.removeItem(at: root) }
    let file = String(repeating: "a", count: 46) + "_test.lua"
    let dots = ".../" + file, deep = "-----deep/" + file
    #expect(dots.utf8.count == 59)
    try TestPathAttackTests.write(Self.raising, to: root.appendingPathComponent(dots))
    try TestPathAttackTests.write(Self.raising, to: root.appendingPathComponent(deep))
    let outcome = try Command.run(["test", "."], in: root)
    #expect(outcome.status == 1)
    #expect(outcome.output.contains(deep + ":1: attempt to index"), "\(outcome.output)")
    #expect(outcome.output.contains("\n    " + dots + ":1: attempt to index"), "\(outcome.output)")
  }

  /// The current folder deleted (a shell still in it): `../other/t_test.lua` still opens, as
  /// the kernel resolves `..` from the deleted folder (`ls` and `lua5.4` open it), and
  /// `fileExists` says it is there; but `discover` makes it absolute from a current path it
  /// cannot get, finds nothing, and the command says `0 passed, 0 failed` and exits 0: a
  /// failing test passes CI unrun. It must run it (exit 1), or at least not exit 0: it refuses,
  /// naming the reason.
  @Test func aRelativePathFromADeletedFolderIsNotAGreenRunOfNothing() throws {
    let root = try makeTemporaryDirectory("test-paths-deleted-cwd")
    defer { try? FileManager.default.removeItem(at: root) }
    try TestPathAttackTests.write(
      Self.raising, to: root.appendingPathComponent("other/t_test.lua"))
    let gone = root.appendingPathComponent("gone")
    try FileManager.default.createDirectory(at: gone, withIntermediateDirectories: true)
    let composable = try builtProduct("composable").path
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = [
      "-c", "cd \"$1\" && rmdir \"$1\" && exec \"$2\" test ../other/t_test.lua", "sh",
      gone.path, composable,
    ]
    let stdout = Pipe(), stderr = Pipe()
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    let output = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let errors = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    let outcome = (status: process.terminationStatus, output: output, errors: errors)
    #expect(outcome.status != 0, "\(outcome.output)\n\(outcome.errors)")
    // Not run, but refused, saying why: no path can name a file from a deleted folder.
    #expect(
      outcome.errors
        == "error: the current folder was deleted (or cannot be read), so relative paths "
        + "cannot be followed from it and no tests were run. To fix, cd to a folder that "
        + "exists, or give absolute paths\n", "\(outcome.output)")
  }

  /// `link/..` where `link` is a symlink to `real/inner`: the folder the kernel opens is `real`,
  /// and its enumerated files are named from there; `x:12:/` (colons and digits in a folder)
  /// is written as it is. (Held.)
  @Test func dotDotAfterASymlinkAndColonsInAFolderName() throws {
    let root = try makeTemporaryDirectory("test-paths-dotdot-dir")
    defer { try? FileManager.default.removeItem(at: root) }
    try TestPathAttackTests.write(Self.raising, to: root.appendingPathComponent("real/r_test.lua"))
    try FileManager.default.createDirectory(
      at: root.appendingPathComponent("real/inner"), withIntermediateDirectories: true)
    try TestPathAttackTests.write(Self.raising, to: root.appendingPathComponent("r_test.lua"))
    try FileManager.default.createSymbolicLink(
      atPath: root.appendingPathComponent("link").path, withDestinationPath: "real/inner")
    let viaLink = try Command.run(["test", "link/.."], in: root)
    #expect(viaLink.status == 1)
    #expect(viaLink.output.contains("    real/r_test.lua:1: attempt"), "\(viaLink.output)")
    #expect(viaLink.output.contains("0 passed, 1 failed"), "\(viaLink.output)")
    try TestPathAttackTests.write(Self.raising, to: root.appendingPathComponent("x:12:/c_test.lua"))
    let colons = try Command.run(["test", "x:12:/"], in: root)
    #expect(colons.output.contains("    x:12:/c_test.lua:1: attempt"), "\(colons.output)")
    #expect(colons.output.contains("\tx:12:/c_test.lua:1: in field"), "\(colons.output)")
  }

  /// A folder named like a test file (`x_test.lua/`) is walked, not taken for a test file that
  /// failed to load ("x_test.lua did not load: ... it is a directory", one failure).
  @Test func aFolderNamedLikeATestFileIsWalked() throws {
    let root = try makeTemporaryDirectory("test-paths-folder-named-test")
    defer { try? FileManager.default.removeItem(at: root) }
    try TestPathAttackTests.write(
      #"describe("d", function() it("passes", function() end) end)"#,
      to: root.appendingPathComponent("x_test.lua/inner_test.lua"))
    try FileManager.default.createDirectory(
      at: root.appendingPathComponent("empty_test.lua"), withIntermediateDirectories: true)
    let outcome = try Command.run(["test", "."], in: root)
    #expect(outcome.status == 0, "\(outcome.output)\n\(outcome.errors)")
    #expect(outcome.output.contains("1 passed, 0 failed"), "\(outcome.output)")
    #expect(!outcome.output.contains("did not load"), "\(outcome.output)")
  }
}
