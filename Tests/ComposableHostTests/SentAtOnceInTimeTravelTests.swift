import ComposableHost
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// An action and the actions it sends back with `effect.send` are reduced together, before
/// anything else can come: no run stands between them. Time travel does not stop there either
/// (it showed states no run reaches, and a test written there failed at once).
@Suite struct SentAtOnceInTimeTravelTests {
  static let source = """
    local effect = require("composable.effect")
    local F = {}
    function F.initial_state() return { n = 0, echoes = 0, late = 0 } end
    function F.reduce(state, action)
      local t = action.type
      if t == "go" then
        state.n = state.n + 1
        return effect.send({ type = "echo" })
      elseif t == "echo" then
        state.echoes = state.echoes + 1
      elseif t == "fan" then
        -- Two at once, one of which sends another at once: four actions, one step.
        return effect.merge(effect.send("go"), effect.cancellable(effect.send("echo"), "e"))
      elseif t == "slow" then
        -- Sent later: a run may stop between.
        return effect.merge(
          effect.concat(effect.send("echo"), effect.send("echo")),
          effect.run(function(send) send({ type = "go" }) end))
      elseif t == "bad" then
        error("no")
      elseif t == "boom" then
        state.late = state.late + 1
        return effect.send("bad")
      end
    end
    return F
    """

  func state(_ repl: ReplSessionTests.Harness) throws -> LuaValue {
    try repl.session.feature.state()
  }

  @Test func undoTakesBackAnActionWithWhatItSentAtOnce() async throws {
    let repl = try ReplSessionTests.Harness(source: Self.source)
    await repl.type("go")
    #expect(try state(repl) == ["n": 1, "echoes": 1, "late": 0])
    let undone = await repl.type(":undo").0
    #expect(undone.contains("at the start"), "\(undone)")
    #expect(try state(repl) == ["n": 0, "echoes": 0, "late": 0])
    await repl.type(":redo")
    #expect(repl.session.timeline.position == 2)
    #expect(try state(repl) == ["n": 1, "echoes": 1, "late": 0])
    // As a run of go, go would end.
    await repl.type(":undo", "go")
    #expect(try state(repl) == ["n": 1, "echoes": 1, "late": 0])
  }

  @Test func gotoBetweenThemGoesOnToTheLastSentAtOnce() async throws {
    let repl = try ReplSessionTests.Harness(source: Self.source)
    await repl.type("go", "go")
    let said = await repl.type(":goto 1").0
    #expect(
      said == """
          after 2 of 4: { type = "echo" }
          (on to action 2: it was sent at once with effect.send, and no run stops before it)
          − echoes = 2
          + echoes = 1
          − n = 2
          + n = 1
        """)
    await repl.type(":goto 0", "fan")
    #expect(repl.session.timeline.count == 4)
    let fanned = await repl.type(":goto 1").0
    #expect(
      fanned.contains(
        "(on to action 4: actions 2 to 4 were sent at once with effect.send, and no run stops "
          + "before them)"), "\(fanned)")
    #expect(try state(repl) == ["n": 1, "echoes": 2, "late": 0])
    await repl.type(":goto 3")
    #expect(repl.session.timeline.position == 4)
  }

  /// What a concatenation or a run sends comes later: a run may stop before it, and so may time
  /// travel. What that action sends at once comes with it.
  @Test func whatComesLaterIsAPlaceToStop() async throws {
    let repl = try ReplSessionTests.Harness(source: Self.source)
    await repl.type("slow")
    try await Task.sleep(for: .milliseconds(50))
    await repl.session.settle()
    let actions = repl.session.timeline.actions
    #expect(actions.count == 5, "\(actions.map(\.action))")
    #expect(actions.map(\.sentAtOnce).filter { $0 }.count == 1)
    // The go the run sent, then its echo: they stand together.
    let go = try #require(actions.firstIndex { $0.action == ["type": "go"] })
    #expect(actions[go + 1].sentAtOnce && actions[go + 1].action == ["type": "echo"])
    await repl.type(":goto 1")
    #expect(repl.session.timeline.position == 1)
    await repl.type(":goto \(go + 1)")
    #expect(repl.session.timeline.position == go + 2)
  }

  /// Failed actions are passed over as before, and counted among those passed.
  @Test func failedActionsAroundAStepAreStillPassedOver() async throws {
    let repl = try ReplSessionTests.Harness(source: Self.source)
    await repl.type("go", "bad")
    let said = await repl.type(":undo").0
    #expect(said.contains("at the start"), "\(said)")
    #expect(said.contains("(past 1 failed action, which changed nothing)"), "\(said)")
    let redone = await repl.type(":redo").0
    #expect(redone.contains("after 2 of 3"), "\(redone)")
  }

  /// A step that changed the state and ends in a failed action it sent is undone whole, and
  /// landed after: it is a step (an attacker's finding: `:undo` went past it to the step
  /// before, saying it passed a failed action).
  @Test func aStepEndingInAFailedActionIsAStepOfItsOwn() async throws {
    let repl = try ReplSessionTests.Harness(source: Self.source)
    await repl.type("go", "boom", "go")
    #expect(repl.session.timeline.count == 6)
    let said = await repl.type(":undo").0
    #expect(said.contains("after 4 of 6"), "\(said)")
    #expect(!said.contains("failed action"), "\(said)")
    #expect(try state(repl) == ["n": 1, "echoes": 1, "late": 1])
    let again = await repl.type(":undo").0
    #expect(again.contains("after 2 of 6"), "\(again)")
    #expect(!again.contains("failed action"), "\(again)")  // undone with its step
    #expect(try state(repl) == ["n": 1, "echoes": 1, "late": 0])
    #expect(await repl.type(":redo").0.contains("after 4 of 6"))
    #expect(await repl.type(":redo").0.contains("after 6 of 6"))
  }

  /// The session as a test from a place time travel stopped at passes, and its file keeps
  /// which actions came at once.
  @Test func aTestFromThereAndTheSavedSessionAgree() async throws {
    let repl = try ReplSessionTests.Harness(source: Self.source)
    await repl.type("go", ":undo", "go", "fan", ":undo")
    #expect(try state(repl) == ["n": 1, "echoes": 1, "late": 0])
    let directory = repl.file.deletingLastPathComponent()
    let written = await repl.type(":test \(directory.path)/counter_test.lua").0
    #expect(written.contains("it passes"), "\(written)")
    let saved = directory.appendingPathComponent("s.session.lua")
    await repl.type(":goto 6", ":save \(saved.path)")
    let read = try SessionRecording.read(from: saved)
    #expect(read.actions.map(\.sentAtOnce) == [false, true, false, true, true, true])
    #expect(read == (await repl.session.recording(relativeTo: directory)))
  }

  @Test func aSessionFileSaysNoTypedActionCameAtOnce() throws {
    let directory = try makeTemporaryDirectory("at-once")
    let file = directory.appendingPathComponent("s.session.lua")
    try """
    return {
      format = "composable-session",
      version = 1,
      feature = "counter.lua",
      code = "fnv1a64:0000000000000000",
      env = {},
      initial_state = { n = 0 },
      actions = {
        { action = { type = "go" }, at = 0, sent_at_once = true },
      },
    }
    """.write(to: file, atomically: true, encoding: .utf8)
    #expect {
      try SessionRecording.read(from: file)
    } throws: { error in
      "\(error)".contains("actions[1].sent_at_once: an action a person typed was not sent by an effect")
    }
  }

  /// `:goto` into a step that a reload refuses to cross says so of the action asked for (a new
  /// user's finding: `:goto 1` was refused as `cannot go to action 2`, the end of its step).
  @Test func aRefusedGotoInsideAStepNamesTheActionAsked() async throws {
    let repl = try ReplSessionTests.Harness()
    await repl.type("ping", "increment")
    #expect(repl.session.timeline.count == 3)
    try ReplSessionTests.source.replacingOccurrences(
      of: "state.count = state.count + 100", with: "state.count = state.count + 5"
    ).write(to: repl.file, atomically: true, encoding: .utf8)
    await repl.type(":reload")
    let refused = await repl.type(":goto 1").0
    #expect(refused.hasPrefix("  error: :goto cannot go to action 1: "), "\(refused)")
  }
}
