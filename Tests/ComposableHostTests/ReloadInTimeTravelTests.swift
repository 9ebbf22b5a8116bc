import ComposableHost
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// A reload keeps the state and swaps the code. The states the session showed before it were
/// made by the code before: time travel, `:save` and `:test` cross it only when the code of now
/// makes them again from the same actions (checked by replaying them when first crossed). When
/// it does not, they stop there and say why, as after a migration, and `:replay` is the way
/// through: it runs the whole session through the code of now.
@Suite struct ReloadInTimeTravelTests {
  /// `inc` adds `step`; `dec` (when `withDec`) takes one away.
  /// `set` sets `n`; `boom` raises "no"; `drawing`, `inc` also keeps a UUID (the +10 code
  /// draws one more first).
  static func source(
    step: Int, withDec: Bool = false, effect: String = "nil", drawing: Bool = false
  ) -> String {
    let draw = !drawing ? "" : step == 1 ? "state.id = env.uuid()" : "env.uuid() state.id = env.uuid()"
    return """
      local effect = require("composable.effect")
      local F = {}
      function F.initial_state() return { n = 0 } end
      function F.reduce(state, action, env)
        if action.type == "inc" then state.n = state.n + \(step) \(draw) return \(effect) end
        if action.type == "set" then state.n = action.n end
        if action.type == "boom" then error("no") end
        \(withDec ? #"if action.type == "dec" then state.n = state.n - 1 end"# : "")
      end
      return F
      """
  }

  func reload(_ repl: ReplSessionTests.Harness, _ source: String) async throws -> String {
    try source.write(to: repl.file, atomically: true, encoding: .utf8)
    return await repl.type(":reload").0
  }

  func state(_ repl: ReplSessionTests.Harness) throws -> LuaValue {
    try repl.session.feature.state()
  }

  /// Two `inc` at +1, a reload to +10, one `inc`: the session shows 1, 2, 12.
  func changedSession() async throws -> ReplSessionTests.Harness {
    let repl = try ReplSessionTests.Harness(source: Self.source(step: 1))
    await repl.type("inc", "inc")
    _ = try await reload(repl, Self.source(step: 10))
    await repl.type("inc")
    #expect(try state(repl) == ["n": 12])
    return repl
  }

  @Test func timeTravelStopsAtAReloadThatChangedWhatTheActionsMake() async throws {
    let repl = try await changedSession()
    // The code of now would make 10 here: the session showed 1.
    let refused = await repl.type(":goto 1").0
    #expect(
      refused == """
          error: :goto cannot go to action 1: the code was reloaded after action 2, and the code \
        of now makes other states from the actions before it than those shown; replayed through \
        it, what action 1 changed differs. To fix, :goto 2 or a later action, or :replay first (it runs the \
        whole session through the code of now)
        """)
    #expect(try state(repl) == ["n": 12])  // nothing moved
    await repl.type(":undo")
    #expect(try state(repl) == ["n": 2])  // as shown before the reload
    #expect(
      await repl.type(":undo").0 == """
          error: :undo cannot go back past action 2: the code was reloaded after action 2, and \
        the code of now makes other states from the actions before it than those shown; \
        replayed through it, what action 1 changed differs. To fix, :replay first (it runs \
        the whole session through the code of now)
        """)
    await repl.type(":redo")
    #expect(try state(repl) == ["n": 12])
    // :replay takes the history into the code of now: every state is reachable again.
    await repl.type(":replay")
    #expect(try state(repl) == ["n": 30])
    await repl.type(":goto 1")
    #expect(try state(repl) == ["n": 10])
  }

  @Test func aSavedSessionStartsAtTheReloadAndReplaysToWhatWasShown() async throws {
    let repl = try await changedSession()
    let saved = repl.file.deletingLastPathComponent().appendingPathComponent("s.session.lua")
    let said = await repl.type(":save \(saved.path)").0
    #expect(said.contains("saved 1 action"), "\(said)")
    #expect(
      said.contains(
        "note: it starts after action 2, where the code was reloaded: the code of now makes "
          + "other states from the actions before it. To keep them all, :replay first"), "\(said)")
    let recording = try SessionRecording.read(from: saved)
    #expect(recording.initialState == ["n": 2])
    #expect(recording.actions.map(\.action) == [["type": "inc"]])
    let replayed = try SessionPlayback.run(recording, feature: repl.file)
    #expect(replayed.state == ["n": 12])  // what the session showed, not 30
  }

  @Test func aTestWrittenAfterTheReloadStartsThereAndPasses() async throws {
    let repl = try await changedSession()
    let test = repl.file.deletingLastPathComponent().appendingPathComponent("counter_test.lua")
    let written = await repl.type(":test \(test.path)").0
    #expect(written.contains("1 sent"), "\(written)")
    #expect(written.contains("it passes"), "\(written)")
    let text = try String(contentsOf: test, encoding: .utf8)
    #expect(text.contains("n = 2"), "\(text)")
    #expect(!text.contains("n = 20") && !text.contains("n = 30"), "\(text)")
  }

  /// Reloads that leave what the earlier actions make as it was (a new action, the same code
  /// saved again) are crossed freely, and the saved session keeps every action.
  @Test func aReloadThatChangesNoEarlierStateIsCrossed() async throws {
    let repl = try ReplSessionTests.Harness(source: Self.source(step: 1))
    await repl.type("inc", "inc")
    _ = try await reload(repl, Self.source(step: 1, withDec: true))
    _ = try await reload(repl, Self.source(step: 1, withDec: true))  // unchanged
    await repl.type("dec")
    #expect(try state(repl) == ["n": 1])
    let back = await repl.type(":goto 0").0
    #expect(!back.contains("error"), "\(back)")
    #expect(try state(repl) == ["n": 0])
    await repl.type(":goto 3")
    await repl.type(":undo", ":undo")
    #expect(try state(repl) == ["n": 1])
    let saved = repl.file.deletingLastPathComponent().appendingPathComponent("s.session.lua")
    await repl.type(":goto 3")
    let said = await repl.type(":save \(saved.path)").0
    #expect(said.contains("saved 3 actions"), "\(said)")
    #expect(!said.contains("note"), "\(said)")
    #expect(try SessionRecording.read(from: saved).initialState == ["n": 0])
  }

  /// The code changed back: what it makes is what was shown, so the reloads go.
  @Test func codeChangedAndChangedBackIsCrossed() async throws {
    let repl = try ReplSessionTests.Harness(source: Self.source(step: 1))
    await repl.type("inc", "inc")
    _ = try await reload(repl, Self.source(step: 10))
    #expect(await repl.type(":goto 1").0.contains("error: :goto cannot go to action 1"))
    _ = try await reload(repl, Self.source(step: 1))
    let back = await repl.type(":goto 1").0
    #expect(!back.contains("error"), "\(back)")
    #expect(try state(repl) == ["n": 1])
  }

  /// A later reload is checked against every state shown before it, those of the code between
  /// included: the +10 code's 12 is not what the +1 code makes.
  @Test func aLaterReloadIsCheckedAgainstTheStatesOfTheCodeBetween() async throws {
    let repl = try await changedSession()
    _ = try await reload(repl, Self.source(step: 1))
    let refused = await repl.type(":goto 2").0
    #expect(refused.contains("the code was reloaded after action 3"), "\(refused)")
    #expect(refused.contains("what action 3 changed differs"), "\(refused)")
    #expect(try state(repl) == ["n": 12])
  }

  /// An action whose effect changed, its state the same, changed the history too: a test of
  /// the earlier actions would receive what the session never did.
  @Test func anEffectThatChangedIsADifference() async throws {
    let repl = try ReplSessionTests.Harness(source: Self.source(step: 1))
    await repl.type("inc")
    _ = try await reload(repl, Self.source(step: 1, effect: #"effect.send({ type = "x" })"#))
    let refused = await repl.type(":goto 0").0
    #expect(refused.contains("action 1's effect differs"), "\(refused)")
  }

  /// Actions undone before a reload are redone through the code of now, from the state the
  /// reload kept, as a new action would be.
  @Test func redoAfterAReloadRunsTheCodeOfNow() async throws {
    let repl = try ReplSessionTests.Harness(source: Self.source(step: 1))
    await repl.type("inc", "inc", "inc", "inc", ":goto 2")
    _ = try await reload(repl, Self.source(step: 10))
    let said = await repl.type(":redo").0
    #expect(
      said.contains("(action 3, undone before the code was reloaded, ran again through the code"),
      "\(said)")
    #expect(try state(repl) == ["n": 12])
    await repl.type(":goto 4")
    #expect(try state(repl) == ["n": 22])
    await repl.type(":goto 2")
    #expect(try state(repl) == ["n": 2])
  }

  /// An error that names a local renamed by the reload is the same error: local names are not
  /// what an action does (an attacker's finding: refused, and `:save` then kept no action).
  @Test func anErrorNamingARenamedLocalIsNoDifference() async throws {
    func source(_ name: String) -> String {
      """
      return {
        initial_state = function() return { n = 0 } end,
        reduce = function(state, action)
          local \(name) = nil
          if action.type == "bad" then return \(name).x end
          state.n = state.n + 1
        end,
      }
      """
    }
    let repl = try ReplSessionTests.Harness(source: source("count"))
    await repl.type("go", "bad", "go")
    _ = try await reload(repl, source("amount"))
    let went = await repl.type(":goto 1").0
    #expect(went.hasPrefix("  after 1 of 3"), "\(went)")
  }

  /// Actions undone before a `:replay` (no reload) are redone the same way, and said to be
  /// undone before it: the line named a reload that never was.
  @Test func actionsUndoneBeforeAReplayAreSaidToBe() async throws {
    let repl = try ReplSessionTests.Harness(source: Self.source(step: 1))
    await repl.type("inc", "inc", "inc", ":goto 1", ":replay")
    let said = await repl.type(":redo").0
    #expect(
      said.contains("(action 2, undone before :replay, ran again through the code of now)"),
      "\(said)")
    #expect(!said.contains("reloaded"), "\(said)")
    #expect(try state(repl) == ["n": 2])
  }

  /// Code that changes a state in between, the state at the reload the same: each action's
  /// changes are compared, not only the states kept (an attacker's finding: `:goto 1` showed 2
  /// where it had shown 1, without a word, and a persisting feature saved it).
  @Test func aStateChangedInBetweenIsADifference() async throws {
    let repl = try ReplSessionTests.Harness(source: Self.source(step: 1))
    await repl.type("inc", #"{ type = "set", n = 5 }"#)
    #expect(try state(repl) == ["n": 5])
    _ = try await reload(repl, Self.source(step: 2))
    let refused = await repl.type(":goto 1").0
    #expect(refused.contains("replayed through it, what action 1 changed differs"), "\(refused)")
    #expect(try state(repl) == ["n": 5])
  }

  /// An error that only moved (a line added above the reducer) and `effect.none` for nothing
  /// are the same history: the reload is crossed.
  @Test func anErrorThatMovedAndEffectNoneAreNoDifference() async throws {
    let repl = try ReplSessionTests.Harness(source: Self.source(step: 1))
    await repl.type("inc", "boom", "inc")
    #expect(try state(repl) == ["n": 2])
    _ = try await reload(repl, "-- a line above\n" + Self.source(step: 1, effect: "effect.none"))
    let back = await repl.type(":goto 0").0
    #expect(!back.contains("error"), "\(back)")
    #expect(try state(repl) == ["n": 0])
  }

  /// An error that says something else is a difference, and the refusal shows both.
  @Test func anErrorThatChangedIsADifferenceShownWhole() async throws {
    let repl = try ReplSessionTests.Harness(source: Self.source(step: 1))
    await repl.type("boom", "inc")
    _ = try await reload(repl, Self.source(step: 1).replacingOccurrences(of: "no", with: "nope"))
    let refused = await repl.type(":goto 0").0
    #expect(refused.contains("action 1's error (was \"counter.lua:"), "\(refused)")
    #expect(refused.contains(": no\", now \"counter.lua:"), "\(refused)")
  }

  /// Actions undone before a reload, redone after it, run through the code of now, as said:
  /// what is saved and tested is what is shown (an attacker's finding: the session kept the
  /// old draws, and its replay and test ended elsewhere than the REPL).
  @Test func actionsUndoneBeforeAReloadAreRedoneAndKeptAsTheyWentNow() async throws {
    let repl = try ReplSessionTests.Harness(source: Self.source(step: 1, drawing: true))
    await repl.type("inc", "inc", "inc", ":goto 1")
    _ = try await reload(repl, Self.source(step: 10, drawing: true))
    let said = await repl.type(":goto 3").0
    #expect(
      said.contains(
        "(actions 2 to 3, undone before the code was reloaded, ran again through the code of "
          + "now)"), "\(said)")
    let shown = try state(repl)
    #expect(shown.n == 21)
    let directory = repl.file.deletingLastPathComponent()
    let saved = directory.appendingPathComponent("s.session.lua")
    await repl.type(":save \(saved.path)")
    let recording = try SessionRecording.read(from: saved)
    #expect(try SessionPlayback.run(recording, feature: repl.file).state == shown)
    let test = directory.appendingPathComponent("counter_test.lua")
    #expect(await repl.type(":test \(test.path)").0.contains("it passes"))
    // Once redone, they are the code of now's: going back and forth says nothing more.
    await repl.type(":goto 1")
    #expect(!(await repl.type(":goto 3").0.contains("ran again")))
    #expect(try state(repl) == shown)
  }

  /// A session of many saves keeps one reload, with one state (a hundred saves held a hundred
  /// states), and time travel still crosses them all when the code makes the same states.
  @Test func manyReloadsKeepOne() async throws {
    let repl = try ReplSessionTests.Harness(source: Self.source(step: 1))
    for version in 0..<30 {
      await repl.type("inc")
      _ = try await reload(repl, Self.source(step: 1) + "\n-- version \(version)")
    }
    #expect(repl.session.timeline.boundaries.count == 1)
    await repl.type(":goto 0")
    #expect(try state(repl) == ["n": 0])
    await repl.type(":goto 30")
    #expect(try state(repl) == ["n": 30])
  }

  /// Code that copies a table the old code shared made the same changes, printed alike, and
  /// another state: compared with which tables are one (an attacker's finding: `:goto 2` showed
  /// `b.v = 1` where it had shown 2).
  @Test func aTableSharedThenCopiedIsADifference() async throws {
    func linking(_ link: String) -> String {
      """
      return {
        initial_state = function() return { a = { v = 1 } } end,
        reduce = function(state, action)
          if action.type == "link" then \(link)
          elseif action.type == "put" then state.a.v = state.a.v + 1 end
        end,
      }
      """
    }
    let repl = try ReplSessionTests.Harness(source: linking("state.b = state.a"))
    await repl.type("link")
    _ = try await reload(repl, linking("state.b = { v = state.a.v }"))
    await repl.type("put")
    let shown = try state(repl)
    let refused = await repl.type(":goto 0").0
    #expect(refused.contains("the state after action 1 differs"), "\(refused)")
    await repl.type(":goto 2")
    #expect(try state(repl) == shown)
    #expect(try state(repl).b.v == 2)
  }

  /// Actions undone before a reload whose effect is another now: the redo ends at the first,
  /// and the actions after it, which went with the old effect, are dropped, as said (an
  /// attacker's finding: the session kept an action the code of now never sends, and its test
  /// failed at once). One that fails now says so.
  @Test func aRedoneActionWhoseEffectChangedEndsTheRedo() async throws {
    func sending(_ effect: String, followFails: Bool = false) -> String {
      """
      local effect = require("composable.effect")
      return {
        initial_state = function() return { a = 0, b = 0 } end,
        reduce = function(state, action)
          if action.type == "go" then state.a = state.a + 1 return \(effect)
          elseif action.type == "follow" then
            \(followFails ? #"error("no follow")"# : "state.b = state.b + 1")
          elseif action.type == "inc" then state.a = state.a + 10 end
        end,
      }
      """
    }
    let repl = try ReplSessionTests.Harness(source: sending(#"effect.send("follow")"#))
    await repl.type("go", "inc", ":goto 0")
    #expect(repl.session.timeline.count == 3)
    _ = try await reload(repl, sending("nil"))
    let said = await repl.type(":goto 3").0
    #expect(said.contains("(action 1, undone before the code was reloaded, ran again"), "\(said)")
    #expect(
      said.contains(
        "action 1 returns another effect now: the 2 undone actions after it, typed ones too, "
          + "are dropped (they came after what the old effect did, and the actions it sent are "
          + "among them)"), "\(said)")
    #expect(said.contains("after 1 of 1"), "\(said)")
    #expect(try state(repl) == ["a": 1, "b": 0])
    let test = repl.file.deletingLastPathComponent().appendingPathComponent("counter_test.lua")
    #expect(await repl.type(":test \(test.path)").0.contains("it passes"))

    let failing = try ReplSessionTests.Harness(source: sending(#"effect.send("follow")"#))
    await failing.type("go", ":goto 0")
    _ = try await reload(failing, sending(#"effect.send("follow")"#, followFails: true))
    let redone = await failing.type(":redo").0
    #expect(redone.contains("action 2 fails now, rolled back:"), "\(redone)")
    #expect(redone.contains("no follow"), "\(redone)")
  }

  /// A check that finds the history changed puts the state back as it was, untouched.
  @Test func theCheckLeavesTheStateAsItWas() async throws {
    let repl = try await changedSession()
    await repl.type(":goto 0")
    #expect(try state(repl) == ["n": 12])
    let shown = await repl.type(":state").0
    #expect(shown.contains("12"), "\(shown)")
    await repl.type("inc")
    #expect(try state(repl) == ["n": 22])
  }
}
