import Foundation
import TestSupport
import Testing

/// Found by testing `composable run`'s exit statuses: when the state could not be saved the run
/// exited 1, yet the summary line it printed last said "(exit status 2)", and the save that
/// failed was counted as "1 effect failed" and said again at the end. The summary agrees with
/// the status, a failed save is said and counted once, as a save, and the summary comes last
/// (after every save in flight).
@Suite struct RunExitSummaryTests {
  /// A tally whose `persist.is_duplicate` raises once it has counted: every save after the first
  /// increment fails, while the run goes on.
  static let unsavableFeature = RunFailedActionsTests.feature.replacingOccurrences(
    of: #"debounce = 0 },"#,
    with: """
      debounce = 0,
          is_duplicate = function(old, new)
            if new.count > 0 then error("no saves here", 0) end
            return false
          end },
      """)

  /// The unsavable tally, and a data directory for it.
  func unsavable() throws -> (directory: URL, feature: URL, data: URL) {
    let directory = try makeTemporaryDirectory("run-exit-summary")
    let feature = directory.appendingPathComponent("tally.lua")
    try Self.unsavableFeature.write(to: feature, atomically: true, encoding: .utf8)
    return (directory, feature, directory.appendingPathComponent("data"))
  }

  func lastLine(_ text: String) -> String? {
    text.split(separator: "\n").last.map(String.init)
  }

  @Test func theSummaryNamesTheStatusTheRunExitsWith() throws {
    let (directory, feature, data) = try unsavable()
    defer { try? FileManager.default.removeItem(at: directory) }
    let outcome = try Command.run(
      ["run", feature.path, "--wait", "0", "--data", data.path], input: "increment\nboom\n")
    #expect(outcome.status == 1, "\(outcome.errors)")
    #expect(
      lastLine(outcome.errors)
        == "error: 1 action failed, 1 save of the state failed; the other lines ran, and the "
        + "state is not saved (exit status 1)", "\(outcome.errors)")
    #expect(!outcome.errors.contains("effect failed"), "\(outcome.errors)")
    // Said once, naming the data directory: not again by the save at the end.
    #expect(
      outcome.errors.components(separatedBy: "could not be saved").count == 2, "\(outcome.errors)")
    // The fault is the feature's: the data directory is not blamed.
    #expect(
      outcome.errors.contains(
        "error: the state could not be saved: persist.is_duplicate raised: no saves here"),
      "\(outcome.errors)")
    #expect(!outcome.errors.contains("pass --data"), "\(outcome.errors)")
  }

  /// An `is_duplicate` stopped by a limit is the feature's fault as much as one that raised:
  /// said as such, with no fix about the data directory (an attacker's finding: a loop and a
  /// memory blow-up there were blamed on the folder).
  @Test(arguments: [
    ("while true do end", "persist.is_duplicate was stopped: limits.lua:5: instruction limit of "),
    ("local t = {} for i = 1, 1e9 do t[i] = i end", "persist.is_duplicate was stopped: memory "),
  ])
  func anIsDuplicateStoppedByALimitIsTheFeatures(_ body: String, _ said: String) throws {
    let directory = try makeTemporaryDirectory("is-duplicate-limits")
    defer { try? FileManager.default.removeItem(at: directory) }
    let feature = directory.appendingPathComponent("limits.lua")
    try """
      local composable = require("composable")
      return {
        persist = composable.persist{
          path = "limits.saved.lua", debounce = 0,
          is_duplicate = function(old, new) \(body) end,
        },
        initial_state = function() return { n = 0 } end,
        reduce = function(state) state.n = state.n + 1 end,
      }
      """.write(to: feature, atomically: true, encoding: .utf8)
    let outcome = try Command.run(
      ["run", feature.path, "--data", directory.appendingPathComponent("data").path],
      input: "increment\n")
    #expect(outcome.status == 1, "\(outcome.errors)")
    #expect(
      outcome.errors.contains("error: the state could not be saved: " + said), "\(outcome.errors)")
    #expect(!outcome.errors.contains("data directory"), "\(outcome.errors)")
  }

  /// A failed save alone: status 1, and a summary that says so (no "other lines").
  @Test func aFailedSaveAloneIsStatusOneWithASummary() throws {
    let (directory, feature, data) = try unsavable()
    defer { try? FileManager.default.removeItem(at: directory) }
    let outcome = try Command.run(
      ["run", feature.path, "--wait", "0", "--data", data.path],
      input: "increment\nincrement\nincrement\n")
    #expect(outcome.status == 1, "\(outcome.errors)")
    #expect(
      lastLine(outcome.errors)
        == "error: 1 save of the state failed, and the state is not saved (exit status 1)",
      "\(outcome.errors)")
  }

  /// Each action starts a save (debounce 0) that may still be writing when the input ends:
  /// the run waits for it, so that the summary is always the last line, every time.
  @Test func theSummaryComesAfterEverySaveInFlight() throws {
    let (directory, feature, data) = try unsavable()
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = String(repeating: "increment\n", count: 20) + "boom\n"
    for _ in 0..<8 {
      let outcome = try Command.run(
        ["run", feature.path, "--wait", "0", "--data", data.path], input: input)
      #expect(outcome.status == 1, "\(outcome.errors)")
      #expect(
        lastLine(outcome.errors)?.hasSuffix("(exit status 1)") == true, "\(outcome.errors)")
      #expect(
        outcome.errors.components(separatedBy: "could not be saved").count == 2,
        "\(outcome.errors)")
    }
  }

  /// A save that fails in the feature's own code (`is_duplicate` raising), during the run
  /// (debounce 0) or at the end of input (60): said with the feature's error, never with a fix
  /// about the data directory (it said "make sure it is a directory you can write to").
  @Test(arguments: [0, 60])
  func aSaveFailingInTheFeaturesCodeSaysNoDirectoryFix(debounce: Int) throws {
    let directory = try makeTemporaryDirectory("run-save-in-code")
    defer { try? FileManager.default.removeItem(at: directory) }
    let feature = directory.appendingPathComponent("tally.lua")
    try """
    local composable = require("composable")
    return {
      persist = composable.persist{ path = "tally.saved.lua", debounce = \(debounce),
        is_duplicate = function(old, new) error("not today") end },
      initial_state = function() return { count = 0 } end,
      reduce = function(state, action) state.count = state.count + 1 end,
    }
    """.write(to: feature, atomically: true, encoding: .utf8)
    let data = directory.appendingPathComponent("data")
    let outcome = try Command.run(
      ["run", feature.path, "--data", data.path], input: "increment\n")
    #expect(outcome.status == 1, "\(outcome.errors)")
    #expect(
      outcome.errors.hasPrefix(
        "error: the state could not be saved: persist.is_duplicate raised: tally.lua:4: not "
          + "today\nstack traceback:\n"), "\(outcome.errors)")
    #expect(!outcome.errors.contains("To fix"), "\(outcome.errors)")
    #expect(
      lastLine(outcome.errors)
        == "error: 1 save of the state failed, and the state is not saved (exit status 1)")
  }

  /// `--data` under a regular file, for a feature that persists: no save could be made, so the
  /// run stops before its first action (it ran them all and lost them at the end), naming the
  /// directory and the fix.
  @Test func aDataDirectoryUnderAFileStopsTheRunBeforeItsFirstAction() throws {
    let directory = try makeTemporaryDirectory("run-data-under-file")
    defer { try? FileManager.default.removeItem(at: directory) }
    let feature = directory.appendingPathComponent("tally.lua")
    try RunFailedActionsTests.feature.write(to: feature, atomically: true, encoding: .utf8)
    let file = directory.appendingPathComponent("a-file")
    try "x".write(to: file, atomically: true, encoding: .utf8)
    let data = file.appendingPathComponent("data")
    let outcome = try Command.run(
      ["run", feature.path, "--wait", "0", "--data", data.path], input: "increment\n")
    #expect(outcome.status == 1, "\(outcome.errors)")
    #expect(
      outcome.errors
        == "error: the state cannot be saved in the data directory \(data.path), so the run "
        + "stops before its first action: \(file.path) is a file, not a directory, so "
        + "\(data.path) cannot be made under it. To fix, pass --data with a directory that is "
        + "not under a file\n")
    #expect(!outcome.output.contains("received action"), "\(outcome.output)")
    #expect(try String(contentsOf: file, encoding: .utf8) == "x")
  }

  /// `--data` that is a file itself: the same, with its own fix.
  @Test func aDataDirectoryThatIsAFileStopsTheRunBeforeItsFirstAction() throws {
    let directory = try makeTemporaryDirectory("run-data-is-file")
    defer { try? FileManager.default.removeItem(at: directory) }
    let feature = directory.appendingPathComponent("tally.lua")
    try RunFailedActionsTests.feature.write(to: feature, atomically: true, encoding: .utf8)
    let file = directory.appendingPathComponent("a-file")
    try "x".write(to: file, atomically: true, encoding: .utf8)
    let outcome = try Command.run(
      ["run", feature.path, "--data", file.path], input: "increment\n")
    #expect(outcome.status == 1, "\(outcome.errors)")
    #expect(
      outcome.errors
        == "error: the state cannot be saved in the data directory \(file.path), so the run "
        + "stops before its first action: \(file.path) is a file, not a directory. To fix, move "
        + "it away, or pass --data with a directory\n")
    #expect(!outcome.output.contains("received action"), "\(outcome.output)")
  }

  /// A saved file that is there but cannot be read (a directory has its name): every save would
  /// replace it, so none is made, and the run stops before its first action; the file is left.
  @Test func aSavedFileThatCannotBeReadStopsTheRunBeforeItsFirstAction() throws {
    let directory = try makeTemporaryDirectory("run-saved-unreadable")
    defer { try? FileManager.default.removeItem(at: directory) }
    let feature = directory.appendingPathComponent("tally.lua")
    try RunFailedActionsTests.feature.write(to: feature, atomically: true, encoding: .utf8)
    let data = directory.appendingPathComponent("data")
    let saved = data.appendingPathComponent("tally.saved.lua")
    try FileManager.default.createDirectory(at: saved, withIntermediateDirectories: true)
    let outcome = try Command.run(
      ["run", feature.path, "--wait", "0", "--data", data.path], input: "increment\n")
    #expect(outcome.status == 1, "\(outcome.errors)")
    #expect(
      outcome.errors
        == "error: the saved state at \(saved.path) could not be loaded (it cannot be read: "
        + "tally.saved.lua: is a directory), and every save would replace it, so the run stops "
        + "before its first action. To fix, move it away (or fix it), then run again\n")
    #expect(!outcome.output.contains("received action"), "\(outcome.output)")
    var isDirectory: ObjCBool = false
    #expect(FileManager.default.fileExists(atPath: saved.path, isDirectory: &isDirectory))
    #expect(isDirectory.boolValue)
  }

  /// A data directory that cannot be written to stops the run at start too. Root writes anyway,
  /// so as root the command runs as `nobody` (setpriv), as a user without the permission would.
  @Test func aReadOnlyDataDirectoryStopsTheRunBeforeItsFirstAction() throws {
    let directory = try makeTemporaryDirectory("run-data-read-only")
    defer {
      try? FileManager.default.setAttributes(
        [.posixPermissions: 0o755], ofItemAtPath: directory.appendingPathComponent("data").path)
      try? FileManager.default.removeItem(at: directory)
    }
    try FileManager.default.setAttributes(
      [.posixPermissions: 0o755], ofItemAtPath: directory.path)
    let feature = directory.appendingPathComponent("tally.lua")
    try RunFailedActionsTests.feature.write(to: feature, atomically: true, encoding: .utf8)
    let data = directory.appendingPathComponent("data")
    try FileManager.default.createDirectory(
      at: data, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o555])
    let (status, text) = try DataDirectoryMessagesTests.incrementAsNobody(
      feature: feature, data: data)
    #expect(status == 1, "\(text)")
    // As root the run is nobody's, in root's folder; else the folder is the runner's own.
    let fix =
      geteuid() == 0
      ? "\(data.path) cannot be read and written by you (Permission denied; it belongs to user "
        + "0). To fix, pass --data with a directory you can write to"
      : "\(data.path) cannot be read and written (Permission denied). To fix, make it yours to "
        + "use (chmod u+rwx \(data.path)), or pass --data with a directory you can write to"
    #expect(
      text
        == "error: the state cannot be saved in the data directory \(data.path), so the run "
        + "stops before its first action: \(fix)\n")
  }
}
