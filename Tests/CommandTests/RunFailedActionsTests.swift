import Foundation
import TestSupport
import Testing

/// `composable run` with actions that fail: each prints its error alone (no "(No state changes)"
/// after it), the lines after it run on, the state the others made is kept and saved, and the
/// exit status is 2, so that a script piping actions in knows something failed.
@Suite struct RunFailedActionsTests {
  static let feature = """
    local composable = require("composable")
    return {
      persist = composable.persist{ path = "tally.saved.lua", debounce = 0 },
      initial_state = function() return { count = 0 } end,
      reduce = function(state, action)
        if action.type == "increment" then
          state.count = state.count + 1
        elseif action.type == "boom" then
          state.count = 99
          error("boom")
        end
      end,
    }
    """

  func tally() throws -> (directory: URL, feature: URL) {
    let directory = try makeTemporaryDirectory("run-failed")
    let feature = directory.appendingPathComponent("tally.lua")
    try Self.feature.write(to: feature, atomically: true, encoding: .utf8)
    return (directory, feature)
  }

  @Test func aFailedActionIsItsErrorAloneAndTheRunExitsTwo() throws {
    let (directory, feature) = try tally()
    defer { try? FileManager.default.removeItem(at: directory) }
    let data = directory.appendingPathComponent("data")
    let outcome = try Command.run(
      ["run", feature.path, "--wait", "0", "--data", data.path],
      input: "increment\nboom\nincrement\n")
    #expect(outcome.status == 2, "\(outcome.errors)")
    // The failed action prints nothing on standard output: no "received action", no
    // "(No state changes)".
    #expect(
      outcome.output == """
        tally.lua loaded. State: { count = 0 }
        Type actions, one per line: a word (increment) or a table ({ type = "add", n = 1 }).
        received action:
          "increment"
          − count = 0
          + count = 1
        received action:
          "increment"
          − count = 1
          + count = 2

        """)
    #expect(!outcome.output.contains("No state changes"))
    #expect(
      outcome.errors.hasPrefix(
        #"error: the reducer failed on { type = "boom" }, and the state was rolled back: "#
          + "tally.lua:10: boom\nstack traceback:\n"), "\(outcome.errors)")
    #expect(
      outcome.errors.hasSuffix("\nerror: 1 action failed; the other lines ran (exit status 2)\n"),
      "\(outcome.errors)")
    // The state the other actions made is kept, and saved, as before.
    let saved = try String(
      contentsOf: data.appendingPathComponent("tally.saved.lua"), encoding: .utf8)
    #expect(saved.contains("count = 2"), "\(saved)")
  }

  /// Every kind of failure counts: an action refused before the reducer ran (a number is no
  /// action), one rolled back, and a line that is not an action at all.
  @Test func theSummaryCountsEachKindOfFailure() throws {
    let (directory, feature) = try tally()
    defer { try? FileManager.default.removeItem(at: directory) }
    let outcome = try Command.run(
      ["run", feature.path, "--wait", "0", "--data", directory.appendingPathComponent("d").path],
      input: "boom\n42\n{ type = \nincrement\n")
    #expect(outcome.status == 2)
    #expect(
      outcome.errors.hasSuffix(
        "\nerror: 2 actions failed, 1 line was not an action; the other lines ran (exit status 2)\n"
      ), "\(outcome.errors)")
    #expect(outcome.output.hasSuffix("  − count = 0\n  + count = 1\n"), "\(outcome.output)")
  }

  @Test func aRunWithNoFailureExitsZeroAndSaysNothingMore() throws {
    let (directory, feature) = try tally()
    defer { try? FileManager.default.removeItem(at: directory) }
    let outcome = try Command.run(
      ["run", feature.path, "--wait", "0", "--data", directory.appendingPathComponent("d").path],
      input: "increment\n")
    #expect(outcome.status == 0)
    #expect(outcome.errors.isEmpty, "\(outcome.errors)")
  }

  @Test func runHelpSaysTheExitStatuses() throws {
    let help = try Command.run(["help", "run"])
    #expect(help.status == 0)
    let text = help.output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
      .joined(separator: " ")
    #expect(
      text.contains(
        "Exit status, piped or at a terminal (the REPL): 0 when nothing failed; 2 when an action "
          + "or an effect failed, a line was not an action (piped), or a reload refused the new "
          + "code (--watch, or the REPL's reload) (the rest ran, and the state it left is kept and "
          + "saved); 1 when the feature did not load, the output could not be written or a save "
          + "of the state failed"), "\(help.output)")
  }
}
