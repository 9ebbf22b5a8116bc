import Foundation
import TestSupport
import Testing

/// Found by testing `composable run`'s exit statuses: when the state could not be saved the run
/// exited 1, yet the summary line it printed last said "(exit status 2)", and the save that
/// failed was counted as "1 effect failed" and said again at the end. The summary agrees with
/// the status, a failed save is said and counted once, as a save, and the summary comes last
/// (after every save in flight).
@Suite struct RunExitSummaryTests {
  /// A data directory whose saved file is a directory: it cannot be read, so no save may
  /// replace it, and every save fails.
  func unsavable() throws -> (directory: URL, feature: URL, data: URL) {
    let directory = try makeTemporaryDirectory("run-exit-summary")
    let feature = directory.appendingPathComponent("tally.lua")
    try RunFailedActionsTests.feature.write(to: feature, atomically: true, encoding: .utf8)
    let data = directory.appendingPathComponent("data")
    try FileManager.default.createDirectory(
      at: data.appendingPathComponent("tally.saved.lua"), withIntermediateDirectories: true)
    return (directory, feature, data)
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
    #expect(
      outcome.errors.contains("the state could not be saved in the data directory \(data.path): "),
      "\(outcome.errors)")
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

  /// `--data` under a regular file: the error names the directory and the fix, not "make it
  /// readable" (about a file that cannot be there).
  @Test func aDataDirectoryUnderAFileIsNamedWithItsFix() throws {
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
      outcome.errors.contains(
        "the state could not be saved in the data directory \(data.path) ("),
      "\(outcome.errors)")
    #expect(
      outcome.errors.contains(
        "\(file.path) is a file, not a directory, so \(data.path) cannot be made under it. To "
          + "fix, pass --data with a directory that is not under a file"), "\(outcome.errors)")
    let saveError = outcome.errors.components(separatedBy: "could not be saved").dropFirst()
      .joined()
    #expect(!saveError.contains("make it readable"), "\(outcome.errors)")
  }

  /// A data directory that cannot be written to. Root writes anyway, so as root the command
  /// runs as `nobody` (setpriv), as a user without the permission would.
  @Test func aReadOnlyDataDirectoryIsNamedWithItsFix() throws {
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
    #expect(text.contains("To fix, make it writable (chmod u+w \(data.path))"), "\(text)")
    #expect(!text.contains("NSCocoaErrorDomain") && !text.contains("UserInfo"), "\(text)")
  }
}
