import Foundation
import TestSupport
import Testing

/// `composable run`'s exit status says what failed in every mode: at a terminal (the REPL), an
/// action that failed makes it 2, as piped; under `--watch`, so does a reload that refused the
/// new code.
@Suite(.serialized) struct RunSessionStatusTests {
  static let feature = """
    return {
      initial_state = function() return { count = 0 } end,
      reduce = function(state, action)
        if action.type == "increment" then state.count = state.count + 1 end
        if action.type == "boom" then error("boom") end
      end,
    }
    """

  @Test func runAtATerminalExitsTwoAfterAFailedAction() throws {
    let directory = try makeTemporaryDirectory("run-terminal-status")
    defer { try? FileManager.default.removeItem(at: directory) }
    try Self.feature.write(
      to: directory.appendingPathComponent("tally.lua"), atomically: true, encoding: .utf8)
    let failing = try ReplTerminalTests.Terminal(directory: directory, command: "run")
    #expect(failing.type("", expecting: "> "), "\(failing.transcript)")
    #expect(failing.type("boom\r", expecting: "boom"), "\(failing.transcript)")
    #expect(failing.type("increment\r", expecting: "+ count = 1"), "\(failing.transcript)")
    #expect(failing.end() == 2, "\(failing.transcript)")

    let passing = try ReplTerminalTests.Terminal(directory: directory, command: "run")
    #expect(passing.type("increment\r", expecting: "+ count = 1"), "\(passing.transcript)")
    #expect(passing.end() == 0, "\(passing.transcript)")
  }

  @Test func runWatchExitsTwoAfterARefusedReload() throws {
    let directory = try makeTemporaryDirectory("run-watch-status")
    defer { try? FileManager.default.removeItem(at: directory) }
    let feature = directory.appendingPathComponent("tally.lua")
    try Self.feature.write(to: feature, atomically: false, encoding: .utf8)
    let run = try WatchedRun(feature: feature, data: directory, errorsToo: true)
    run.type("increment")
    #expect(run.waitFor("+ count = 1", seconds: 20), "\(run.output)")
    try "return {".write(to: feature, atomically: true, encoding: .utf8)
    #expect(run.waitFor("the old code runs on", seconds: 20), "\(run.output)")
    run.type("increment")
    #expect(run.waitFor("+ count = 2", seconds: 20), "\(run.output)")
    let status = try run.end()
    #expect(status == 2, "\(run.output)")
    #expect(
      run.output.hasSuffix("error: 1 reload was refused (exit status 2)\n"), "\(run.output)")
  }
}
