import Composable
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

@testable import ComposableHost

/// An effect that sleeps until a time the clock has reached (`sleep(0)` in an `effect.run`,
/// `effect.after(0, ...)`) is woken by a test clock only at an advance, as TCA's test clock
/// does. A session's clock woke it at once, and a test written by `:test` received its action
/// with no advance before it, and failed. Now a paused session's clock waits for an advance as
/// the test's does, and where such a sleep happened the test advances by zero.
@Suite struct SleepsDueNowAsTestTests {
  typealias Harness = ReplSessionTests.Harness

  static let source = """
    local effect = require("composable.effect")
    return {
      initial_state = function() return { n = 0, done = 0 } end,
      reduce = function(state, action)
        if action.type == "go" then
          state.n = state.n + 1
          return effect.run(function(send) sleep(0); send("done") end)
        elseif action.type == "after" then
          return effect.after(0, "done")
        elseif action.type == "now" then
          return effect.send("done")
        elseif action.type == "done" then
          state.done = state.done + 1
        end
      end,
    }
    """

  /// Types `lines` into a paused session, writes it as a Lua test, and returns what `:test`
  /// said and the test's text.
  func writeTest(_ lines: [String]) async throws -> (said: String, text: String) {
    let repl = try Harness(source: Self.source)
    for line in lines { await repl.type(line) }
    let test = repl.file.deletingLastPathComponent().appendingPathComponent("counter_test.lua")
    let said = await repl.type(":test \(test.path)").0
    return (said, try String(contentsOf: test, encoding: .utf8))
  }

  @Test func aPausedSessionsSleepOfZeroWaitsForAnAdvance() async throws {
    let repl = try Harness(source: Self.source)
    await repl.type("go")
    #expect(try repl.session.feature.state()["done"] == 0)
    await repl.type(":advance 0")
    #expect(try repl.session.feature.state()["done"] == 1)
  }

  @Test(arguments: [
    ["go", ":advance 0"],
    ["after", ":advance 0", "go", ":advance 0"],
    ["go", "go", ":advance 0", "now"],
    ["go", ":advance 0", ":undo", ":undo", "after", ":advance 0"],
    ["go", ":advance 0", ":goto 0", "go", ":advance 0"],
    ["now", "go", ":advance 1", "after", ":advance 0.5"],
  ])
  func aSessionWithSleepsOfZeroBecomesATestThatPasses(_ lines: [String]) async throws {
    let (said, text) = try await writeTest(lines)
    #expect(said.contains("; it passes (composable test "), "\(said)\n\(text)")
  }

  /// A session whose clock runs woke such a sleep at once, often in the millisecond its action
  /// was sent: the plan advances by zero where the session says one slept, and only there (an
  /// action `effect.send` sent back needs no advance).
  @Test func thePlanAdvancesByZeroWhereASleepWasDueAtOnce() throws {
    let file = try makeTemporaryDirectory("sleeps").appendingPathComponent("counter.lua")
    try Self.source.write(to: file, atomically: true, encoding: .utf8)
    let recording = SessionRecording(
      feature: "counter.lua", code: "fnv1a64:0", env: [:], initialState: ["n": 0, "done": 0],
      actions: [
        RecordedAction(action: ["type": "go"], fromEffect: false, time: 0.5),
        RecordedAction(action: ["type": "done"], fromEffect: true, time: 0.5),
        RecordedAction(action: ["type": "now"], fromEffect: false, time: 0.5),
        RecordedAction(action: ["type": "done"], fromEffect: true, time: 0.5),
      ])
    let plan = try SessionTestPlan(
      recording: recording, exchanges: [], wakingNow: [2], feature: file, inFlight: [])
    let kinds = plan.steps.map { step -> String in
      switch step {
      case .send: "send"
      case .receive: "receive"
      case let .advance(milliseconds): "advance \(milliseconds)"
      case .sendFailing, .receiveFailed, .leftOut: "failed"
      case .cancelEffects, .cancelledByHand: "cancel"
      }
    }
    #expect(kinds == ["send", "advance 0", "receive", "send", "receive"])
  }
}

/// A session undone (`:undo`) to between two actions one advance woke: the test's advance wakes
/// both, and the test skips what the session undid at its end.
@Suite struct UndoneReceivedAsTestTests {
  @Test(arguments: [
    ["go", "go", ":advance 0", ":undo"],
    ["after", "after", ":advance 0", ":undo"],
    ["go", "go", ":advance 0", ":undo", ":undo", ":redo"],
  ])
  func aTestOfAnUndoneSessionSkipsWhatWasUndone(_ lines: [String]) async throws {
    let repl = try ReplSessionTests.Harness(source: SleepsDueNowAsTestTests.source)
    for line in lines { await repl.type(line) }
    let test = repl.file.deletingLastPathComponent().appendingPathComponent("counter_test.lua")
    let said = await repl.type(":test \(test.path)").0
    let text = (try? String(contentsOf: test, encoding: .utf8)) ?? ""
    #expect(said.contains("; it passes (composable test "), "\(said)\n\(text)")
    #expect(text.contains("store:skip_received_actions()  -- what effects sent that the session"))
  }
}
