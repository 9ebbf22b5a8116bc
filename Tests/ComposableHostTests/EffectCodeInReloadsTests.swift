import ComposableHost
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// A reload that changed only the body of a coroutine an earlier action's `effect.run` runs:
/// the effect's description (a function) is the same, but the code of now would send other
/// actions than those the session recorded from it. The check of the reload sees the code (an
/// attacker's finding: it was crossed, and a test written after it failed when written).
@Suite struct EffectCodeInReloadsTests {
  typealias Harness = ReplSessionTests.Harness

  /// `go` counts and runs a coroutine that sends `got` with `sent` (`got` keeps it).
  static func source(sends sent: String, helper: String = "return v", above: String = "")
    -> String
  {
    """
    \(above)local effect = require("composable.effect")
    local function shape(v) \(helper) end
    return {
      initial_state = function() return { n = 0, got = {} } end,
      reduce = function(state, action)
        if action.type == "go" then
          state.n = state.n + 1
          return effect.run(function(send) send({ type = "got", v = shape(\(sent)) }) end)
        elseif action.type == "got" then
          table.insert(state.got, action.v)
        end
      end,
    }
    """
  }

  func session(_ source: String) async throws -> Harness {
    let repl = try Harness(source: source, clock: ReplClock(paused: false))
    await repl.type("go")
    #expect(try repl.session.feature.state() == ["n": 1, "got": ["a"]])
    #expect(repl.session.timeline.count == 2)
    return repl
  }

  func reload(_ repl: Harness, _ source: String) async throws {
    try source.write(to: repl.file, atomically: true, encoding: .utf8)
    await repl.type(":reload")
  }

  @Test(arguments: [
    (#""b""#, "return v"),  // what the body sends
    (#""a""#, "return v .. v"),  // a helper the body calls
  ])
  func aCoroutineWhoseCodeChangedIsADifference(sent: String, helper: String) async throws {
    let repl = try await session(Self.source(sends: #""a""#))
    try await reload(repl, Self.source(sends: sent, helper: helper))
    let refused = await repl.type(":goto 0").0
    #expect(
      refused.contains("replayed through it, the code of action 1's effect differs"),
      "\(refused)")
    #expect(try repl.session.feature.state() == ["n": 1, "got": ["a"]])
    // :test starts after the reload, where the code of now made what was shown, and passes.
    let test = repl.file.deletingLastPathComponent().appendingPathComponent("counter_test.lua")
    let written = await repl.type(":test \(test.path)").0
    #expect(written.contains("it passes"), "\(written)")
  }

  /// The same code saved again, lines added above it: crossed, as before.
  @Test func theSameCodeMovedIsNoDifference() async throws {
    let repl = try await session(Self.source(sends: #""a""#))
    try await reload(repl, Self.source(sends: #""a""#, above: "-- a comment\n\n"))
    let went = await repl.type(":goto 0").0
    #expect(went.hasPrefix("  at the start"), "\(went)")
    #expect(try repl.session.feature.state() == ["n": 0, "got": []])
  }

  /// An undone action redone over a reload whose coroutine changed ends the redo there: what
  /// its effect sent was the old code's.
  @Test func aRedoOverACoroutineThatChangedEndsThere() async throws {
    let repl = try await session(Self.source(sends: #""a""#))
    await repl.type(":goto 0")
    try await reload(repl, Self.source(sends: #""b""#))
    let said = await repl.type(":redo").0
    #expect(
      said.contains(
        "action 1 returns another effect now: the 1 action after it, undone, went with the old "
          + "one, and are dropped"), "\(said)")
  }
}
