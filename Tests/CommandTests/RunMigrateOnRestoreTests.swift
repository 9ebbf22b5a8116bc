import Foundation
import TestSupport
import Testing

/// `composable run` on a feature whose state was saved by other code: its `migrate(state)`
/// upgrades the restored state, and what it changed is printed; a `migrate` that raises stops
/// the run before anything is saved, naming the file, which is left as it was.
@Suite struct RunMigrateOnRestoreTests {
  func start() throws -> (directory: URL, feature: URL, data: URL) {
    let directory = try makeTemporaryDirectory("migrate-restore")
    let feature = directory.appendingPathComponent("tally.lua")
    try MigrateOnRestoreSources.v1.write(to: feature, atomically: true, encoding: .utf8)
    let data = directory.appendingPathComponent("data")
    let first = try Command.run(
      ["run", feature.path, "--wait", "0", "--data", data.path], input: "inc\ninc\n")
    #expect(first.status == 0, "\(first.errors)")
    return (directory, feature, data)
  }

  @Test func aStateSavedByOtherCodeIsUpgradedByMigrate() throws {
    let (directory, feature, data) = try start()
    defer { try? FileManager.default.removeItem(at: directory) }
    try MigrateOnRestoreSources.v2.write(to: feature, atomically: true, encoding: .utf8)
    let upgraded = try Command.run(
      ["run", feature.path, "--wait", "0", "--data", data.path], input: "inc\n")
    #expect(upgraded.status == 0, "\(upgraded.errors)")
    #expect(
      upgraded.output.hasPrefix(
        """
        Restored from \(data.appendingPathComponent("tally.saved.lua").path).
        It was saved by other code, and migrate(state) ran on it:
          + count = 20
          − n = 2
        tally.lua loaded. State: { count = 20 }
        """), "\(upgraded.output)")
    #expect(upgraded.output.contains("  − count = 20\n  + count = 21\n"), "\(upgraded.output)")
    // Saved by the new code now: the next start restores it as it is.
    let again = try Command.run(
      ["run", feature.path, "--wait", "0", "--data", data.path], input: "")
    #expect(!again.output.contains("migrate(state)"), "\(again.output)")
    #expect(again.output.contains("State: { count = 21 }"), "\(again.output)")
  }

  /// A state other code saved that lacks a field `initial_state()` gives (here `n`, a name
  /// that is a word, and `["a key"]`, one that is not): a note names them, with a fix written
  /// as Lua, before an action fails on one.
  @Test func aRestoredStateThatLacksFieldsIsNoted() throws {
    let (directory, feature, data) = try start()
    defer { try? FileManager.default.removeItem(at: directory) }
    try MigrateOnRestoreSources.v1.replacingOccurrences(
      of: "return { n = 0 }", with: #"return { n = 0, ["a key"] = {}, mode = "all" }"#
    ).replacingOccurrences(of: "state.n = state.n + 1", with: "state.n = state.n + 2")
      .write(to: feature, atomically: true, encoding: .utf8)
    let outcome = try Command.run(
      ["run", feature.path, "--wait", "0", "--data", data.path], input: "")
    #expect(outcome.status == 0, "\(outcome.errors)")
    #expect(
      outcome.errors
        == "note: the state restored from tally.saved.lua was saved by other code, and is not "
        + #"shaped as initial_state() gives it: ["a key"] is nil where initial_state() gives a "#
        + "table, mode is nil where it gives a string. An action reading them may fail. To fix, "
        + #"have migrate(state) set them (`if state["a key"] == nil then state["a key"] = ... "#
        + "end`), or move the file away to start from initial_state()\n")
  }

  @Test func aMigrateThatRaisesStopsTheRunAndLeavesTheFile() throws {
    let (directory, feature, data) = try start()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = data.appendingPathComponent("tally.saved.lua")
    let saved = try Data(contentsOf: file)
    try MigrateOnRestoreSources.v2.replacingOccurrences(
      of: "state.n = nil", with: "state.n = nil\n    error(\"cannot upgrade\")"
    ).write(to: feature, atomically: true, encoding: .utf8)
    let outcome = try Command.run(
      ["run", feature.path, "--wait", "0", "--data", data.path], input: "inc\n")
    #expect(outcome.status == 1)
    #expect(
      outcome.errors.hasPrefix(
        "error: tally.lua did not load: tally.saved.lua: the state saved there was saved by "
          + "other code, and migrate(state) failed on it: tally.lua:8: cannot upgrade\n"),
      "\(outcome.errors)")
    #expect(
      outcome.errors.hasSuffix(
        "The file is left as it was, and nothing is saved over it. To fix, make migrate(state) "
          + "handle that state, or move the file away to start from initial_state()\n"
          + "(the data directory is \(data.path))\n"), "\(outcome.errors)")
    #expect(!outcome.output.contains("received action"), "\(outcome.output)")
    #expect(try Data(contentsOf: file) == saved)
  }
}
