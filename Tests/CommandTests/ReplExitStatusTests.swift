import Foundation
import TestSupport
import Testing

/// `composable repl` exits as `run`'s REPL at a terminal does: 2 when an action failed, 0 when
/// nothing did. It exited 0 whatever failed (a new user's finding: piped, `explode` gave 0 where
/// `composable run` gave 2, as the README's exit statuses say).
@Suite struct ReplExitStatusTests {
  static let feature = """
    return {
      initial_state = function() return { n = 0 } end,
      reduce = function(state, action)
        if action.type == "boom" then state.n = 99 error("boom") end
        state.n = state.n + 1
      end,
    }
    """

  func status(input: String) throws -> (Int32, String) {
    let directory = try makeTemporaryDirectory("repl-exit-status")
    defer { try? FileManager.default.removeItem(at: directory) }
    let feature = directory.appendingPathComponent("tally.lua")
    try Self.feature.write(to: feature, atomically: true, encoding: .utf8)
    let outcome = try Command.run(
      ["repl", feature.path, "--data", directory.appendingPathComponent("data").path],
      input: input)
    return (outcome.status, outcome.output + outcome.errors)
  }

  @Test func aFailedActionIsStatusTwo() throws {
    let (status, text) = try status(input: "increment\nboom\nincrement\n")
    #expect(status == 2, "\(text)")
    #expect(text.contains("boom"), "\(text)")
  }

  @Test func nothingFailedIsStatusZero() throws {
    let (status, text) = try status(input: "increment\nincrement\n")
    #expect(status == 0, "\(text)")
  }
}
