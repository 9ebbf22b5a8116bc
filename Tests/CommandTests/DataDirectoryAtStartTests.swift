import Foundation
import TestSupport
import Testing

/// What `composable run` sees wrong with a data directory at start, for a feature that
/// persists, stops the run before its first action, naming the folder at fault as it is on disk
/// (an attacker's findings: a dangling symlink and a folder that cannot be read were blamed on
/// a saved file that was not there; a folder of the saved file's own path was not looked at,
/// and the run lost its action; `/dev/null` was to be "moved away").
@Suite struct DataDirectoryAtStartTests {
  /// The tally (debounce 0), saved at `path` under the data directory.
  static func feature(savedAt path: String) -> String {
    RunFailedActionsTests.feature.replacingOccurrences(of: "\"tally.saved.lua\"", with: "\"\(path)\"")
  }

  /// Runs the tally on one `increment` with `--data data`; its status, output and errors.
  func run(
    in directory: URL, data: String, savedAt path: String = "tally.saved.lua",
    input: String = "increment\n"
  ) throws -> Command.Outcome {
    let feature = directory.appendingPathComponent("tally.lua")
    try Self.feature(savedAt: path).write(to: feature, atomically: true, encoding: .utf8)
    return try Command.run(["run", feature.path, "--data", data], input: input)
  }

  func expectStopped(_ outcome: Command.Outcome, data: String, fix: String) {
    #expect(outcome.status == 1, "\(outcome.errors)")
    #expect(
      outcome.errors
        == "error: the state cannot be saved in the data directory \(data), so the run stops "
        + "before its first action: \(fix)\n")
    #expect(!outcome.output.contains("received action"), "\(outcome.output)")
  }

  @Test func aSymlinkThatLeadsNowhere() throws {
    let directory = try makeTemporaryDirectory("data-dangling")
    defer { try? FileManager.default.removeItem(at: directory) }
    let link = directory.appendingPathComponent("data").path
    let target = directory.appendingPathComponent("gone/x").path
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
    expectStopped(
      try run(in: directory, data: link), data: link,
      fix: "\(link) is a symlink that leads nowhere (to \(target), which is not there). To fix, "
        + "make the directory it leads to, or pass --data with a directory")
  }

  @Test func aSymlinkInALoop() throws {
    let directory = try makeTemporaryDirectory("data-loop")
    defer { try? FileManager.default.removeItem(at: directory) }
    let link = directory.appendingPathComponent("data").path
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: link)
    expectStopped(
      try run(in: directory, data: link), data: link,
      fix: "\(link) is a symlink that leads nowhere (to a loop of symlinks). To fix, make the "
        + "directory it leads to, or pass --data with a directory")
  }

  /// A symlink to a folder is followed, as the files follow it: the run saves there.
  @Test func aSymlinkToAFolderIsFollowed() throws {
    let directory = try makeTemporaryDirectory("data-link-to-folder")
    defer { try? FileManager.default.removeItem(at: directory) }
    let target = directory.appendingPathComponent("real")
    try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
    let link = directory.appendingPathComponent("data").path
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target.path)
    let outcome = try run(in: directory, data: link)
    #expect(outcome.status == 0, "\(outcome.errors)")
    #expect(FileManager.default.fileExists(atPath: target.appendingPathComponent("tally.saved.lua").path))
  }

  /// A path the system cannot name (past `PATH_MAX`, or a name past `NAME_MAX`), by `--data`
  /// or by the saved file's folders under it: the run stops before its first action, and makes
  /// no folder (it ran its actions, then made folders up to the limit and lost the state).
  @Test func aPathTooLongForTheSystem() throws {
    let directory = try makeTemporaryDirectory("data-too-long")
    defer { try? FileManager.default.removeItem(at: directory) }
    let long = directory.path + "/" + Array(repeating: String(repeating: "d", count: 200), count: 21)
      .joined(separator: "/")
    let shownLong = String(long.prefix(60)) + "..."
    expectStopped(
      try run(in: directory, data: long), data: long,
      fix: "the path \(shownLong) is \(long.utf8.count) bytes long; the system takes at most "
        + "4095. To fix, pass --data with a shorter path")
    let name = String(repeating: "n", count: 256)
    let wide = directory.path + "/data/" + name
    let shownWide = wide.utf8.count > 80 ? String(wide.prefix(60)) + "..." : wide
    expectStopped(
      try run(in: directory, data: wide), data: wide,
      fix: "the folder name \(String(name.prefix(30)))... in \(shownWide) is 256 bytes long; the "
        + "system takes at most 255. To fix, pass --data with shorter names")
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["tally.lua"])
    // A short relative path in a deep folder is as long as both (it ran the actions, made the
    // folders, then lost the state).
    let deepFolder = directory.appendingPathComponent(
      Array(repeating: String(repeating: "c", count: 250), count: 15).joined(separator: "/"))
    try FileManager.default.createDirectory(at: deepFolder, withIntermediateDirectories: true)
    try Self.feature(savedAt: "tally.saved.lua").write(
      to: deepFolder.appendingPathComponent("tally.lua"), atomically: true, encoding: .utf8)
    let relative = Array(repeating: String(repeating: "r", count: 250), count: 2)
      .joined(separator: "/")
    let fromDeep = try Command.run(
      ["run", "tally.lua", "--data", relative], input: "increment\n", in: deepFolder)
    #expect(fromDeep.status == 1, "\(fromDeep.errors)")
    #expect(fromDeep.errors.contains("bytes long; the system takes at most 4095"), "\(fromDeep.errors)")
    #expect(!fromDeep.output.contains("received action"))
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: deepFolder.path) == ["tally.lua"])
    // Foundation cannot remove a folder this deep ("File name too long"); rm can.
    let remove = try Process.run(
      URL(fileURLWithPath: "/bin/rm"),
      arguments: ["-rf", directory.appendingPathComponent(String(repeating: "c", count: 250)).path])
    remove.waitUntilExit()
    // The saved file's folders under a short one are made one at a time, each named from the
    // one above: deeper than the system's limit for a whole path is no problem.
    let data = directory.appendingPathComponent("data").path
    let deep = Array(repeating: String(repeating: "f", count: 200), count: 20)
      .joined(separator: "/")
    #expect((data + "/" + deep + "/tally.saved.lua").utf8.count > 4095)
    let first = try run(in: directory, data: data, savedAt: deep + "/tally.saved.lua")
    #expect(first.status == 0, "\(first.errors)")
    let second = try run(in: directory, data: data, savedAt: deep + "/tally.saved.lua")
    #expect(second.output.contains("State: { count = 1 }"), "\(second.output)")
  }

  @Test func aDevice() throws {
    let directory = try makeTemporaryDirectory("data-device")
    defer { try? FileManager.default.removeItem(at: directory) }
    expectStopped(
      try run(in: directory, data: "/dev/null"), data: "/dev/null",
      fix: "/dev/null is not a directory (a character device). To fix, pass --data with a "
        + "directory")
  }

  /// The saved file's own folder (`persist{ path = "sub/..." }`) is a file.
  @Test func aFolderOfTheSavedPathIsAFile() throws {
    let directory = try makeTemporaryDirectory("data-sub-file")
    defer { try? FileManager.default.removeItem(at: directory) }
    let data = directory.appendingPathComponent("data")
    try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
    let sub = data.appendingPathComponent("sub")
    try "x".write(to: sub, atomically: true, encoding: .utf8)
    expectStopped(
      try run(in: directory, data: data.path, savedAt: "sub/tally.saved.lua"), data: data.path,
      fix: "\(sub.path) is a file, not a directory. To fix, move it away, or pass --data with a "
        + "directory")
    #expect(try String(contentsOf: sub, encoding: .utf8) == "x")
  }

  /// The saved file's own folder cannot be written to, where the data directory can: the run
  /// ran its action and lost it at the end.
  @Test func aFolderOfTheSavedPathThatCannotBeWritten() throws {
    let directory = try makeTemporaryDirectory("data-sub-locked")
    defer {
      try? FileManager.default.setAttributes(
        [.posixPermissions: 0o755], ofItemAtPath: directory.appendingPathComponent("data/sub").path)
      try? FileManager.default.removeItem(at: directory)
    }
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
    let feature = directory.appendingPathComponent("tally.lua")
    try Self.feature(savedAt: "sub/tally.saved.lua").write(
      to: feature, atomically: true, encoding: .utf8)
    let data = directory.appendingPathComponent("data")
    let sub = data.appendingPathComponent("sub")
    try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
    try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: data.path)
    try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: sub.path)
    let (status, text) = try DataDirectoryMessagesTests.incrementAsNobody(
      feature: feature, data: data)
    #expect(status == 1, "\(text)")
    #expect(
      text.hasPrefix(
        "error: the state cannot be saved in the data directory \(data.path), so the run stops "
          + "before its first action: \(sub.path) cannot be read and written"), "\(text)")
  }

  /// A folder its user owns but cannot read (`-wx`): the saved file could not be looked for.
  /// The fix is the owner's `chmod`: as root the folder is given to nobody, who runs it.
  @Test func aFolderItsOwnerCannotRead() throws {
    let directory = try makeTemporaryDirectory("data-no-read")
    defer {
      try? FileManager.default.setAttributes(
        [.posixPermissions: 0o755], ofItemAtPath: directory.appendingPathComponent("data").path)
      try? FileManager.default.removeItem(at: directory)
    }
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
    let feature = directory.appendingPathComponent("tally.lua")
    try RunFailedActionsTests.feature.write(to: feature, atomically: true, encoding: .utf8)
    let data = directory.appendingPathComponent("data")
    try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
    if geteuid() == 0 { chown(data.path, 65534, 65534) }
    try FileManager.default.setAttributes([.posixPermissions: 0o300], ofItemAtPath: data.path)
    let (status, text) = try DataDirectoryMessagesTests.incrementAsNobody(
      feature: feature, data: data)
    #expect(status == 1, "\(text)")
    #expect(
      text
        == "error: the state cannot be saved in the data directory \(data.path), so the run stops "
        + "before its first action: \(data.path) cannot be read and written (Permission denied). "
        + "To fix, make it yours to use (chmod u+rwx \(data.path)), or pass --data with a "
        + "directory you can write to\n")
  }

  /// A saved file that is no state is set aside, and the run goes on: the warning says where
  /// the file went, in full, and how to have it back (a new user had to guess the folder).
  @Test func aSavedFileThatIsNoStateIsSetAsideAndSaidWhere() throws {
    let directory = try makeTemporaryDirectory("data-set-aside")
    defer { try? FileManager.default.removeItem(at: directory) }
    let data = directory.appendingPathComponent("data")
    try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
    let file = data.appendingPathComponent("tally.saved.lua")
    try "return { count = 2*6 }".write(to: file, atomically: true, encoding: .utf8)
    let outcome = try run(in: directory, data: data.path)
    #expect(outcome.status == 0, "\(outcome.errors)")
    let names = try FileManager.default.contentsOfDirectory(atPath: data.path)
    let aside = try #require(names.first { $0.hasPrefix("tally.saved.lua.corrupt-") }, "\(names)")
    let asidePath = data.appendingPathComponent(aside).path
    #expect(try String(contentsOfFile: asidePath, encoding: .utf8) == "return { count = 2*6 }")
    #expect(
      outcome.errors.contains(
        "warning: the file set aside is \(asidePath). To have it back, end this run before its "
          + "first change is saved, fix the file, and move it back to \(file.path)\n"),
      "\(outcome.errors)")
    // Said again at the end, where it is seen (the warning scrolled by; a new user's finding).
    #expect(
      outcome.errors.hasSuffix(
        "note: the saved file that could not be read at the start is still at \(asidePath), set "
          + "aside: \(file.path) holds this run's state. To have the old one back, fix it and "
          + "move it over \(file.path)\n"), "\(outcome.errors)")
  }

  /// A run that set its saved file aside and then saved nothing (no action changed the state)
  /// left no file in its place: the note at the end does not say one holds its state (a new
  /// user looked for it), and says where to move the old one back.
  @Test func aRunThatSavedNothingSaysSoOfTheFileSetAside() throws {
    let directory = try makeTemporaryDirectory("data-set-aside-unsaved")
    defer { try? FileManager.default.removeItem(at: directory) }
    let data = directory.appendingPathComponent("data")
    try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
    let file = data.appendingPathComponent("tally.saved.lua")
    try "return { count = 2*6 }".write(to: file, atomically: true, encoding: .utf8)
    let outcome = try run(in: directory, data: data.path, input: "")
    #expect(outcome.status == 0, "\(outcome.errors)")
    #expect(!FileManager.default.fileExists(atPath: file.path))
    let names = try FileManager.default.contentsOfDirectory(atPath: data.path)
    let aside = try #require(names.first { $0.hasPrefix("tally.saved.lua.corrupt-") }, "\(names)")
    let asidePath = data.appendingPathComponent(aside).path
    #expect(
      outcome.errors.hasSuffix(
        "note: the saved file that could not be read at the start is still at \(asidePath), set "
          + "aside: this run saved nothing in its place (no change reached what is saved). To "
          + "have it back, fix it and move it to \(file.path)\n"), "\(outcome.errors)")
  }

  /// A saved file this user may not read: the system's reason is said.
  @Test func aSavedFileThatCannotBeReadSaysWhy() throws {
    let directory = try makeTemporaryDirectory("data-saved-unreadable")
    defer { try? FileManager.default.removeItem(at: directory) }
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
    let feature = directory.appendingPathComponent("tally.lua")
    try RunFailedActionsTests.feature.write(to: feature, atomically: true, encoding: .utf8)
    let data = directory.appendingPathComponent("data")
    try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
    try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: data.path)
    let file = data.appendingPathComponent("tally.saved.lua")
    try "return { count = 1 }".write(to: file, atomically: true, encoding: .utf8)
    try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: file.path)
    let (status, text) = try DataDirectoryMessagesTests.incrementAsNobody(
      feature: feature, data: data)
    #expect(status == 1, "\(text)")
    #expect(
      text.contains("(it cannot be read: tally.saved.lua: cannot be read (Permission denied))"),
      "\(text)")
  }

  @Test func anEmptyPathIsAWrongCommandLine() throws {
    let directory = try makeTemporaryDirectory("data-empty")
    defer { try? FileManager.default.removeItem(at: directory) }
    let outcome = try run(in: directory, data: "")
    #expect(outcome.status == 64, "\(outcome.errors)")
    #expect(outcome.errors.hasPrefix("error: --data: expected a directory, got an empty path\n"))
  }

  /// A feature that does not persist runs whatever `--data` is: it may never write a file.
  @Test func aFeatureThatDoesNotPersistRunsWithABadDataDirectory() throws {
    let directory = try makeTemporaryDirectory("data-not-persisting")
    defer { try? FileManager.default.removeItem(at: directory) }
    let feature = directory.appendingPathComponent("count.lua")
    try """
      return {
        initial_state = function() return { n = 0 } end,
        reduce = function(state) state.n = state.n + 1 end,
      }
      """.write(to: feature, atomically: true, encoding: .utf8)
    let outcome = try Command.run(
      ["run", feature.path, "--data", "/dev/null/x"], input: "increment\n")
    #expect(outcome.status == 0, "\(outcome.errors)")
    #expect(outcome.output.contains("+ n = 1"), "\(outcome.output)")
  }
}
