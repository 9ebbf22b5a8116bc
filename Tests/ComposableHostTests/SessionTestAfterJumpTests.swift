import Composable
import ComposableLua
import Foundation
import LuaKit
import Testing

@testable import ComposableHost

/// `:test` after `:undo` or `:goto`: a jump cancels the session's effects, but a test of the
/// actions up to there still has them running. The test is written from what a run of its own
/// steps leaves running, so it passes as written.
@Suite struct SessionTestAfterJumpTests {
  typealias Harness = ReplSessionTests.Harness

  static let source = """
    local effect = require("composable.effect")
    return {
      initial_state = function() return { ticks = 0 } end,
      reduce = function(state, action)
        if action.type == "start" then
          return effect.cancellable(effect.every(1, "tick"), "clock")
        elseif action.type == "stop" then
          return effect.cancel("clock")
        elseif action.type == "tick" then
          state.ticks = state.ticks + 1
        elseif action.type == "later" then
          return effect.after(5, "tick")
        end
      end,
    }
    """

  /// Types `lines`, writes the session as `name`, and returns what `:test` said and the test's
  /// text.
  func writeTest(_ repl: Harness, _ lines: [String], as name: String) async throws
    -> (said: String, text: String)
  {
    for line in lines { await repl.type(line) }
    let test = repl.file.deletingLastPathComponent().appendingPathComponent(name)
    let said = await repl.type(":test \(test.path)").0
    return (said, try String(contentsOf: test, encoding: .utf8))
  }

  @Test(arguments: [
    // The timer started, two ticks, one undone: the timer still runs in the test.
    ["start", ":advance 2", ":undo"],
    // Back to the start action itself.
    ["start", ":advance 3", ":goto 1"],
    // Stopped, then the stop undone: running again as far as the test can tell.
    ["start", ":advance 1", "stop", ":undo"],
    // A delayed action the jump cancelled, due after the test's last step.
    ["later", "start", ":advance 1", ":undo"],
  ])
  func aTestWrittenAfterAJumpPassesAsWritten(_ lines: [String]) async throws {
    let repl = try Harness(source: Self.source)
    let (said, text) = try await writeTest(repl, lines, as: "clock_test.lua")
    #expect(said.contains("; it passes (composable test "), "\(said)\n\(text)")
    #expect(text.contains("-- Still running at the test's end (what its steps started): "))
    #expect(text.contains(#"effect.every with id "clock""#))
    #expect(text.contains("store:skip_in_flight_effects()"))
  }

  /// Undone until nothing runs: the test ends with `finish` alone.
  @Test func aJumpToBeforeTheTimerLeavesNothingToSkip() async throws {
    let repl = try Harness(source: Self.source)
    let (said, text) = try await writeTest(
      repl, ["tick", "start", ":advance 2", ":goto 1"], as: "early_test.lua")
    #expect(said.contains("; it passes"), "\(said)")
    #expect(!text.contains("skip_in_flight_effects"))
    #expect(text.contains("store:finish()"))
  }

  /// A new action after a jump starts a branch: the jump cancelled the effects of the branch
  /// left behind (a timer that ran on), and the test cancels them at that point too, so it
  /// passes as written. Each of `:goto`, `:undo`, `:redo` marks the action after it.
  @Test(arguments: [
    ["start", ":advance 2", ":goto 1", "later", ":advance 6"],
    ["start", ":advance 2", ":undo", ":undo", "start", ":advance 1"],
    ["start", ":advance 1", ":undo", ":redo", "stop"],
  ])
  func aBranchAfterAJumpIsATestThatPasses(_ lines: [String]) async throws {
    let repl = try Harness(source: Self.source)
    let (said, text) = try await writeTest(repl, lines, as: "branch_test.lua")
    #expect(said.contains("; it passes (composable test "), "\(said)\n\(text)")
    #expect(
      text.contains(
        "-- and what was running is cancelled, as the session did\n    store:skip_received_actions()"
          + "\n    store:skip_in_flight_effects()"),
      "\(text)")
    // A saved session keeps the mark, and reads it back.
    let saved = repl.file.deletingLastPathComponent().appendingPathComponent("branch.session.lua")
    await repl.type(":save \(saved.path)")
    let session = try SessionRecording.read(from: saved)
    #expect(session.actions.contains { $0.afterJump })
  }

  /// The Swift test says the same.
  @Test func aSwiftTestAfterAJumpSkipsTheEffectsStillRunning() async throws {
    let repl = try Harness(source: Self.source)
    let (said, text) = try await writeTest(
      repl, ["start", ":advance 2", ":undo"], as: "ClockTests.swift")
    #expect(said.contains("wrote "), "\(said)")
    #expect(text.contains("await store.skipInFlightEffects()"), "\(text)")
  }
}
