import Composable
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

@testable import ComposableHost

/// `:test` of a session whose effects draw from `env` (an id, a number, the time, made in an
/// `effect.run` coroutine): the test plays back what they drew, as it plays back the reducer's
/// draws, so it passes as written. It failed before: its effects drew fresh answers, and every
/// action they sent back differed from the recorded one.
@Suite struct EffectDrawsAsTestTests {
  typealias Harness = ReplSessionTests.Harness

  static let feature = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("fixtures/draws/draws.lua")
  static let source = (try? String(contentsOf: feature, encoding: .utf8)) ?? ""
  static let generated = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Generated/DrawsSessionTests.swift")

  /// The ids of the rolls in the session's state, in order.
  static func rollIDs(_ repl: Harness) throws -> [LuaValue] {
    let rolls = try repl.session.feature.evaluate("state.rolls")
    return rolls.first?.tableValue?.sequence.map { $0.tableValue?["id"] ?? .nil } ?? []
  }

  /// Types `lines`, writes the session as a Lua test, and returns what `:test` said and the
  /// test's text.
  func writeTest(_ lines: [String]) async throws -> (repl: Harness, said: String, text: String) {
    let repl = try Harness(source: Self.source)
    for line in lines { await repl.type(line) }
    let test = repl.file.deletingLastPathComponent().appendingPathComponent("counter_test.lua")
    let said = await repl.type(":test \(test.path)").0
    return (repl, said, try String(contentsOf: test, encoding: .utf8))
  }

  @Test func aSessionWhoseEffectsDrawBecomesATestThatPasses() async throws {
    let (repl, said, text) = try await writeTest(["roll", ":advance 1", "roll", ":advance 1"])
    #expect(said.contains(": 2 sent, 2 received; it passes (composable test "), "\(said)\n\(text)")
    // The live generator's ids, in the effects' answers and not the reducer's.
    let ids = try Self.rollIDs(repl)
    #expect(ids.count == 2)
    let effects = try #require(text.range(of: "effects = {"))
    for id in ids {
      let written = try #require(id.stringValue)
      #expect(text.range(of: written).map { $0.lowerBound > effects.lowerBound } == true, "\(text)")
    }
    #expect(text.contains("random = { "), "\(text)")
    #expect(text.contains("now = { "), "\(text)")
  }

  /// What effects drew on a branch that `:undo` left and a new action replaced is not played:
  /// the test's second roll gets the second branch's answers.
  @Test(arguments: [
    // Undone, then a new roll: a new branch.
    ["roll", ":advance 1", "roll", ":advance 1", ":undo", ":undo", "roll", ":advance 1"],
    // Undone only: the test ends where the session stands.
    ["roll", ":advance 1", "roll", ":advance 1", ":undo", ":undo"],
    // Jumped back to the start and rolled again.
    ["roll", ":advance 1", ":goto 0", "roll", ":advance 1"],
  ])
  func theDrawsOfABranchLeftBehindAreNotPlayed(_ lines: [String]) async throws {
    let (repl, said, text) = try await writeTest(lines)
    #expect(said.contains("; it passes (composable test "), "\(said)\n\(text)")
    // One id an effect drew for each roll the state holds: those of the branch left behind
    // would have given the new branch's roll the old one's id, failing the test.
    let ids = try Self.rollIDs(repl)
    let played = repl.session.timeline.effectDraws(after: 0).map(\.draw).filter {
      $0.name == "uuid"
    }
    #expect(played.map(\.value) == ids, "\(text)")
  }

  /// A feature whose effects draw, sleep different times, draw in a `<close>` handler, and are
  /// cancelled, by the feature or by a jump (an attacker's sessions: each test failed when the
  /// answers were one list for all effects, taken in the session's order).
  static let busy = """
    local effect = require("composable.effect")
    return {
      initial_state = function() return { got = {}, n = 0 } end,
      reduce = function(state, action, env)
        local t = action.type
        if t == "go" then
          return effect.run(function(send)
            local u = env.uuid()
            sleep(action.d or 0.1)
            send({ type = "got", u = u, r = env.random(1, 1000) })
          end)
        elseif t == "quiet" then
          return effect.run(function() env.uuid() env.random() env.now() end)
        elseif t == "got" then
          state.got[#state.got + 1] = action.u .. ":" .. action.r
        elseif t == "long" then
          return effect.cancellable(effect.run(function(send)
            local c <close> = setmetatable({}, { __close = function() local _ = env.uuid() end })
            env.uuid()
            sleep(10)
          end), "long")
        elseif t == "stop" then
          return effect.cancel("long")
        elseif t == "chain" then
          return effect.send("noop")
        elseif t == "closer" then
          return effect.run(function(send)
            local c <close> = setmetatable({}, { __close = function() local _ = env.random() end })
            sleep(1)
            send({ type = "got", u = "v", r = env.random(1, 9) })
          end)
        elseif t == "noop" then
          state.n = state.n + 1
        end
      end,
    }
    """

  @Test(arguments: [
    // A draw in a <close> handler when a jump cancels the effect.
    ["long", "noop", ":goto 1", "stop", "long", "stop"],
    // Undone, redone, then new actions; an effect that sends nothing; one undone away.
    [
      "go", ":advance 0.2", "go", ":advance 0.2", ":undo", ":undo", ":redo", "go",
      ":advance 0.2", "quiet", #"{ type = "go", d = 1 }"#, ":advance 2", ":undo", ":undo", "go",
      ":advance 0.2",
    ],
    // A jump between an action and the one its effect.send sent at once, then an effect that
    // draws: the test skips what it received there, and counts on without it.
    ["chain", ":undo", "go", ":advance 0.2"],
    ["chain", "noop", ":goto 1", "go", ":advance 0.2", "chain", ":undo", "go", ":advance 0.2"],
    // An effect that drew, then a jump back to before it ended: its <close> handler, which the
    // test runs at the jump, gets no answer the session's effect got later.
    ["closer", "noop", ":advance 1", ":goto 2", "noop"],
    // Effects overlapping, waking in another order than they started.
    [#"{ type = "go", d = 1 }"#, #"{ type = "go", d = 0.5 }"#, "quiet", ":advance 2"],
  ])
  func eachEffectGetsWhatTheEffectOfItsActionDrew(_ lines: [String]) async throws {
    let repl = try Harness(source: Self.busy)
    for line in lines { await repl.type(line) }
    let test = repl.file.deletingLastPathComponent().appendingPathComponent("counter_test.lua")
    let said = await repl.type(":test \(test.path)").0
    let text = (try? String(contentsOf: test, encoding: .utf8)) ?? ""
    #expect(said.contains("; it passes (composable test "), "\(said)\n\(text)")
  }

  /// The Swift test of such a session gives the effects' answers to its tape (it compiles and
  /// passes in `Generated/`, with the TestStore's generators unset: an answer it lacked would
  /// fail it).
  @Test func theSwiftTestOfASessionWhoseEffectsDrawIsTheOneThatRuns() async throws {
    var dependencies = DependencyValues.live
    dependencies.uuid = .incrementing
    dependencies.random = RandomSource(seed: 7)
    dependencies.date = .constant(Date(timeIntervalSince1970: 1_700_000_000))
    let repl = try Harness(dependencies: dependencies, file: Self.feature)
    await repl.type("roll", ":advance 1", "roll", ":advance 1")
    let plan = try SessionTestPlan(
      recording: await repl.session.recording(), exchanges: repl.session.exchanges.all,
      effectDraws: repl.session.timeline.effectDraws(after: 0), feature: Self.feature,
      inFlight: [])
    let text = try SwiftTestWriter.text(plan, name: "DrawsSessionTests", testFile: Self.generated)
    if ProcessInfo.processInfo.environment["REGENERATE_SESSION_TESTS"] == "1" {
      try Data(text.utf8).write(to: Self.generated)
    }
    #expect(text.contains("], effectsOfActions: ["), "\(text)")
    let committed = try String(contentsOf: Self.generated, encoding: .utf8)
    #expect(text == committed)
  }

  /// A TestStore given answers for effects plays them to effects only, each function's in
  /// order; the reducer's come from `answers` itself.
  @Test func aTestStoresEffectAnswersGoToEffectsOnly() async throws {
    let directory = try makeTemporaryDirectory("effect-answers")
    defer { try? FileManager.default.removeItem(at: directory) }
    try Self.source.write(
      to: directory.appendingPathComponent("draws.lua"), atomically: true, encoding: .utf8)
    let test = """
      local TestStore = require("composable.test").TestStore
      it("plays each list to its own", function()
        local store = TestStore.new{
          feature = "draws",
          answers = {
            uuid = { "reducer-1", "reducer-2" },
            -- Any effect's, and under [3] those of the effects of the 3rd action (the second
            -- roll: roll, rolled, roll), taken first.
            effects = { uuid = { "effect-1" }, random = { 6, 2 }, now = { 5 },
              [3] = { uuid = { "of-action-3" } } },
          },
          uuid = "incrementing",
          now = 100,
        }
        store:send({ type = "roll" }, function(s) s.asked = "reducer-1" end)
        store:advance(1)
        store:receive({ type = "rolled", id = "effect-1", value = 6, at = 5 }, function(s)
          s.rolls[1] = { id = "effect-1", value = 6, at = 5 }
        end)
        store:send({ type = "roll" }, function(s) s.asked = "reducer-2" end)
        store:advance(1)
        -- The effects' list of times ran out: the TestStore's own date answers.
        local id = "of-action-3"
        store:receive({ type = "rolled", id = id, value = 2, at = 100 }, function(s)
          s.rolls[2] = { id = id, value = 2, at = 100 }
        end)
        store:finish()
      end)
      """
    try test.write(
      to: directory.appendingPathComponent("draws_test.lua"), atomically: true, encoding: .utf8)
    let results = await LuaTestRunner().run(file: directory.appendingPathComponent("draws_test.lua"))
    #expect(results.map(\.outcome) == [.passed], "\(results)")
  }
}
