import Foundation
import TestSupport
import Testing

/// Attacks on which files `composable test` runs, how many times, and how it names them.
@Suite struct TestCommandAttack3Tests {
  static let passing = """
    describe("t", function() it("runs", function() print("RAN") end) end)
    """
  static let failing = """
    describe("t", function() it("fails", function() assert.equal(1, 2) end) end)
    """

  /// Makes `name` under `root` byte for byte (no Unicode normalization on the way).
  static func makeFolder(_ name: String, under root: URL) throws -> URL {
    let path = root.path + "/" + name
    #expect(mkdir(path, 0o755) == 0)
    return URL(fileURLWithPath: path, isDirectory: true)
  }

  /// `café` with é composed (NFC) and `café` with e and a combining accent (NFD) are two
  /// folders on Linux, each with its own `x_test.lua`. Both must run. The command removes
  /// duplicates with a `Set<String>` of paths, and Swift's `String` equality is canonical
  /// equivalence: the two paths are "equal", and only one file runs (`1 passed`), the other
  /// silently dropped (were it the failing one, CI would pass with it unrun).
  /// Repro: `mkdir $'caf\xc3\xa9' $'cafe\xcc\x81'`, a test in each, `composable test`.
  @Test func twoFilesWhoseNamesDifferOnlyInUnicodeFormBothRun() throws {
    let root = try makeTemporaryDirectory("test-cmd-unicode-forms")
    defer { try? FileManager.default.removeItem(at: root) }
    let composed = try Self.makeFolder("caf\u{E9}", under: root)
    let decomposed = try Self.makeFolder("cafe\u{301}", under: root)
    try Self.passing.write(
      to: composed.appendingPathComponent("x_test.lua"), atomically: false, encoding: .utf8)
    try Self.failing.write(
      to: decomposed.appendingPathComponent("x_test.lua"), atomically: false, encoding: .utf8)
    #expect(try FileManager.default.contentsOfDirectory(atPath: root.path).count == 2)
    let outcome = try Command.run(["test"], in: root)
    #expect(outcome.output.contains("1 passed, 1 failed"), "\(outcome.output)")
    #expect(outcome.status == 1, "the failing test did not run:\n\(outcome.output)")
  }

  /// `link` is a symlink to a folder of tests (`ls link/` lists them, `lua5.4 link/a_test.lua`
  /// runs): `composable test link` (or `link/`) says there is no test file under it and exits
  /// 1; FileManager's enumerator does not follow a symlink given as the root.
  @Test func aSymlinkToAFolderOfTestsIsSearched() throws {
    let root = try makeTemporaryDirectory("test-cmd-symlinked-folder")
    defer { try? FileManager.default.removeItem(at: root) }
    try TestPathAttackTests.write(Self.passing, to: root.appendingPathComponent("d/a_test.lua"))
    try FileManager.default.createSymbolicLink(
      atPath: root.appendingPathComponent("link").path, withDestinationPath: "d")
    for path in ["link", "link/"] {
      let outcome = try Command.run(["test", path], in: root)
      #expect(outcome.status == 0, "\(path): \(outcome.errors)")
      #expect(outcome.output.contains("1 passed, 0 failed"), "\(path): \(outcome.output)")
    }
  }

  /// One file by two paths (`d/a_test.lua` and `link/a_test.lua`, `link` -> `d`): it runs
  /// twice (`2 passed`), where a file named twice runs once. The duplicate check compares
  /// paths, not the file (device and inode, or the resolved path).
  @Test func oneFileByTwoPathsRunsOnce() throws {
    let root = try makeTemporaryDirectory("test-cmd-two-paths")
    defer { try? FileManager.default.removeItem(at: root) }
    try TestPathAttackTests.write(Self.passing, to: root.appendingPathComponent("d/a_test.lua"))
    try FileManager.default.createSymbolicLink(
      atPath: root.appendingPathComponent("link").path, withDestinationPath: "d")
    let outcome = try Command.run(["test", "d/a_test.lua", "link/a_test.lua"], in: root)
    #expect(outcome.output.contains("1 passed, 0 failed"), "\(outcome.output)")
  }

  /// The current folder deleted, an absolute path given (allowed: "give absolute paths"): the
  /// failure names the file `tmp/.../f_test.lua`, relative to `/` (the current path read as
  /// empty), a name that opens nothing from anywhere but `/`. It must be the absolute path.
  @Test func aDeletedCurrentFolderWithAnAbsolutePathNamesTheFileAbsolutely() throws {
    let root = try makeTemporaryDirectory("test-cmd-deleted-cwd-absolute")
    defer { try? FileManager.default.removeItem(at: root) }
    let file = root.appendingPathComponent("other/f_test.lua")
    try TestPathAttackTests.write(Self.failing, to: file)
    let gone = root.appendingPathComponent("gone")
    try FileManager.default.createDirectory(at: gone, withIntermediateDirectories: true)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = [
      "-c", "cd \"$1\" && rmdir \"$1\" && exec \"$2\" test \"$3\"", "sh", gone.path,
      try builtProduct("composable").path, file.path,
    ]
    let stdout = Pipe()
    process.standardOutput = stdout
    process.standardError = FileHandle.nullDevice
    try process.run()
    let output = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 1)
    #expect(output.contains("    \(file.path):1: Expected"), "\(output)")
  }

  /// Held: a file and its folder run it once; a filter matching none fails, stdout still a
  /// whole JUnit document; a filter matching a test runs it.
  @Test func aFileAndItsFolderRunOnceAndAnEmptyFilterFailsWithValidXML() throws {
    let root = try makeTemporaryDirectory("test-cmd-held")
    defer { try? FileManager.default.removeItem(at: root) }
    try TestPathAttackTests.write(Self.passing, to: root.appendingPathComponent("d/a_test.lua"))
    let twice = try Command.run(["test", "./d/a_test.lua", "d/"], in: root)
    #expect(twice.status == 0)
    #expect(twice.output.contains("1 passed, 0 failed"), "\(twice.output)")
    let none = try Command.run(["test", "--filter", "zzz", "--output", "junit", "d"], in: root)
    #expect(none.status == 1)
    #expect(none.output.hasPrefix("<?xml"), "\(none.output)")
    #expect(none.output.hasSuffix("</testsuites>\n"), "\(none.output)")
    #expect(none.errors.contains("no test's name contains \"zzz\""), "\(none.errors)")
  }
}
