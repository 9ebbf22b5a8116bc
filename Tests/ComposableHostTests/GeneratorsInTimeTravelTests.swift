import Composable
import ComposableLua
import Foundation
import LuaKit
import SeededRandom
import TestSupport
import Testing

@testable import ComposableHost

/// Time travel puts `env.uuid()` (incrementing) and `env.random()` (seeded) back where they
/// stood after the action it lands on: an action sent after a jump draws what a run of the
/// branch's actions draws, not what comes after the draws of the actions undone. Before, after
/// `add a, add b, add c, :goto 1, add d`, d's id was ...0003 where a run of `add a, add d` gives
/// ...0001.
@Suite struct GeneratorsInTimeTravelTests {
  typealias Harness = ReplSessionTests.Harness

  static let source = """
    local Draws = {}
    Draws.actions = { "draw", "float", "fail", "idle" }
    function Draws.initial_state() return { ids = {}, rolls = {} } end
    function Draws.reduce(state, action, env)
      if action.type == "draw" then
        table.insert(state.ids, env.uuid())
        table.insert(state.rolls, env.random(1000000))
      elseif action.type == "float" then
        state.float = env.random()
      elseif action.type == "fail" then
        -- Its draws are made, its write rolled back: the generators stay moved, in a run too.
        state.last = env.uuid() .. env.random(9)
        error("failed after drawing")
      end
    end
    return Draws
    """

  /// A session whose store draws incrementing UUIDs and seeded numbers (fresh generators each:
  /// they are shared by reference).
  static func session() throws -> Harness {
    var dependencies = DependencyValues.live
    dependencies.uuid = .incrementing
    dependencies.random = RandomSource(seed: 7)
    return try Harness(source: source, dependencies: dependencies)
  }

  /// The state a fresh session reaches by the branch's actions alone, typed in order.
  static func stateOfARun(of repl: Harness) async throws -> LuaValue {
    let run = try session()
    let branch = repl.session.timeline.actions.prefix(repl.session.timeline.position)
    for action in branch { await run.type(try #require(action.action.type.stringValue)) }
    return try run.session.feature.state()
  }

  @Test func anActionAfterAJumpBackDrawsWhatARunOfTheBranchDraws() async throws {
    let repl = try Self.session()
    await repl.type("draw", "draw", "draw", ":goto 1")
    let said = await repl.type("draw").0
    #expect(said.contains(#"+ ids[2] = "00000000-0000-0000-0000-000000000001""#), "\(said)")
    let run = try await Self.stateOfARun(of: repl)
    #expect(try repl.session.feature.state() == run)
  }

  /// A random walk of actions and jumps (`:undo`, `:redo`, `:goto N`, `:replay`), each ending
  /// in a draw: the state is always a run's of the branch. Failed actions drew before they
  /// raised, as in a run.
  @Test(arguments: 0..<24)
  func anyWalkOfJumpsLeavesTheStateOfARunOfTheBranch(seed: UInt64) async throws {
    var random = SplitMix64(seed: seed)
    let repl = try Self.session()
    var typed: [String] = []
    for _ in 0..<20 {
      let count = repl.session.timeline.count
      let line: String
      switch random.below(20) {
      case 0..<7: line = "draw"
      case 7..<9: line = "float"
      case 9..<11: line = "fail"
      case 11: line = "idle"
      case 12..<15: line = ":undo"
      case 15..<17: line = ":redo"
      case 17..<19: line = ":goto \(random.below(count + 1))"
      default: line = ":replay"
      }
      typed.append(line)
      await repl.type(line)
    }
    typed.append("draw")
    await repl.type("draw")
    let state = try repl.session.feature.state()
    let run = try await Self.stateOfARun(of: repl)
    #expect(state == run, "\(typed)")
  }

  /// With random UUIDs, jumps leave the generator as it is (it has no place to go back to), and
  /// an action sent after a jump back still draws a new one.
  @Test func randomUUIDsAreNotRepeatedAfterAJump() async throws {
    let repl = try Harness(source: Self.source, dependencies: .live)
    await repl.type("draw")
    let first = try repl.session.feature.evaluate("state.ids[1]")
    await repl.type(":goto 0", "draw")
    let second = try repl.session.feature.evaluate("state.ids[1]")
    #expect(first.first?.stringValue != nil && first != second)
  }
}

/// Code that now draws more than the session recorded gets the same answers in the REPL's
/// `:replay` and in `composable replay` of the saved session: UUIDs counting on past the largest
/// the session holds, `random` from seed 0. The REPL's drew them from the session's generator,
/// `composable replay` counted from zero and repeated the ids the recording served (an
/// attacker's finding: one session, two answers, duplicate ids).
@Suite struct DrawsBeyondTheRecordingTests {
  typealias Harness = ReplSessionTests.Harness

  static func source(tags: Bool) -> String {
    """
    local F = {}
    F.actions = { "add" }
    function F.initial_state() return { items = {} } end
    function F.reduce(state, action, env)
      if action.type == "add" then
        local item = { id = env.uuid() }
        \(tags ? "item.tag = env.uuid() item.roll = env.random(1000)" : "")
        table.insert(state.items, item)
      end
    end
    return F
    """
  }

  @Test func theREPLAndComposableReplayAnswerAlike() async throws {
    var dependencies = DependencyValues.live
    dependencies.uuid = .incrementing
    dependencies.random = RandomSource(seed: 5)
    let repl = try Harness(source: Self.source(tags: false), dependencies: dependencies)
    await repl.type("add", "add")
    try Self.source(tags: true).write(to: repl.file, atomically: true, encoding: .utf8)
    await repl.type(":reload")
    await repl.type(":replay")
    let replayed = try repl.session.feature.state()
    let ids = try repl.session.feature.evaluate(
      "state.items[1].id, state.items[1].tag, state.items[2].id, state.items[2].tag")
    #expect(
      ids == [
        "00000000-0000-0000-0000-000000000000", "00000000-0000-0000-0000-000000000002",
        "00000000-0000-0000-0000-000000000001", "00000000-0000-0000-0000-000000000003",
      ])
    let session = repl.file.deletingLastPathComponent().appendingPathComponent("s.session.lua")
    await repl.type(":save \(session.path)")
    // The saved session holds the actions as they went through the code of now: replayed
    // again, they answer from it; the first recording, through the same code, answers alike.
    let recording = try SessionRecording.read(from: session)
    var first = recording
    first.actions = first.actions.map { action in
      var plain = action
      plain.draws = Array(action.draws.prefix(1))  // as the old code drew: one id
      return plain
    }
    for played in [recording, first] {
      let playback = try SessionPlayback.run(played, feature: repl.file)
      #expect(playback.state == replayed, "\(playback.state)")
    }
  }

  /// The ids in the state, and whether they are all different.
  static func idsAreDistinct(_ repl: Harness) throws -> (Bool, LuaValue) {
    let found = try repl.session.feature.evaluate(
      """
      (function()
      local seen, list, distinct = {}, {}, true
      for _, item in ipairs(state.items) do
        for _, id in ipairs({ item.id, item.tag }) do
          if seen[id] then distinct = false end
          seen[id] = true
          list[#list + 1] = id
        end
      end
      return distinct, list
      end)()
      """)
    return (found.first == true, found.last ?? .nil)
  }

  /// After a replay, or a redo of actions undone before a reload, through code that draws
  /// more, the next action draws past every id the branch holds: it repeated the replay's
  /// (an attacker's finding), and a redo repeated the recorded ones.
  @Test(arguments: [
    ["add", "add", ":reload", ":replay", "add", ":goto 1", "add"],
    ["add", "add", ":goto 0", ":reload", ":redo 2", "add"],
    ["add", "add", ":goto 1", ":reload", ":goto 2", "add", ":undo", "add"],
  ])
  func theNextActionDrawsPastEveryIdTheBranchHolds(_ lines: [String]) async throws {
    var dependencies = DependencyValues.live
    dependencies.uuid = .incrementing
    let repl = try Harness(source: Self.source(tags: false), dependencies: dependencies)
    for line in lines {
      if line == ":reload" {
        try Self.source(tags: true).write(to: repl.file, atomically: true, encoding: .utf8)
      }
      await repl.type(line)
    }
    let (distinct, ids) = try Self.idsAreDistinct(repl)
    #expect(distinct, "\(lines): \(ids)")
  }

  /// What an effect drew counts too: a coroutine's id, drawn while the session ran, was drawn
  /// again for a field the code of now adds (an attacker's finding).
  @Test(arguments: [[":replay"], [":goto 0", ":reload", ":redo 3"]])
  func anEffectsDrawCountsAsTheBranchs(_ then: [String]) async throws {
    func source(extra: Bool) -> String {
      """
      local effect = require("composable.effect")
      local F = {}
      F.actions = { "add", "spawn", "made" }
      function F.initial_state() return { items = {} } end
      function F.reduce(state, action, env)
        if action.type == "add" then
          table.insert(state.items, { id = env.uuid()\(extra ? ", tag = env.uuid()" : "") })
        elseif action.type == "spawn" then
          return effect.run(function(send) send({ type = "made", id = env.uuid() }) end)
        elseif action.type == "made" then
          table.insert(state.items, { id = action.id })
        end
      end
      return F
      """
    }
    var dependencies = DependencyValues.live
    dependencies.uuid = .incrementing
    let repl = try Harness(source: source(extra: false), dependencies: dependencies)
    await repl.type("add", "spawn")
    for _ in 0..<30000 where repl.session.timeline.count < 3 {
      try await Task.sleep(for: .milliseconds(10))
    }
    try source(extra: true).write(to: repl.file, atomically: true, encoding: .utf8)
    if then.first == ":replay" { await repl.type(":reload") }
    for line in then { await repl.type(line) }
    await repl.type("add")
    let (distinct, ids) = try Self.idsAreDistinct(repl)
    #expect(distinct, "\(then): \(ids)")
  }
}
