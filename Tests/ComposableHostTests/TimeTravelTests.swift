import Composable
import ComposableHost
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// `:goto`, `:undo` and `:redo` over the session's timeline: branches, effects in flight, and
/// `env` answers that come back as they were.
@Suite struct TimeTravelTests {
  typealias Harness = ReplSessionTests.Harness

  static let todos = """
    local effect = require("composable.effect")
    local Todos = {}
    function Todos.initial_state() return { todos = {}, rolls = {} } end
    function Todos.reduce(state, action, env)
      local t = action.type
      if t == "add" then
        table.insert(state.todos, { id = env.uuid(), title = action.title, done = false })
      elseif t == "toggle" then
        for _, todo in ipairs(state.todos) do
          if todo.id == action.id then todo.done = not todo.done end
        end
      elseif t == "roll" then
        table.insert(state.rolls, env.random(1, 1000000))
      elseif t == "later" then
        return effect.after(1, { type = "add", title = "later" })
      end
    end
    return Todos
    """

  @Test func gotoUndoAndRedoMoveAlongTheTimeline() async throws {
    let repl = try Harness()
    await repl.type("increment", "increment", "increment")
    #expect(await repl.type(":goto 1").0 == """
        after 1 of 3: { type = "increment" }
        − count = 3
        + count = 1
      """)
    #expect(await repl.type(":log").0 == """
      ▶ 1 { type = "increment" }
        2 { type = "increment" }  (undone)
        3 { type = "increment" }  (undone)
      """)
    #expect(await repl.type(":redo").0 == """
        after 2 of 3: { type = "increment" }
        − count = 1
        + count = 2
      """)
    #expect(await repl.type(":goto 0").0 == "  at the start\n  − count = 2\n  + count = 0")
    #expect(await repl.type(":goto 3").0.hasSuffix("  − count = 0\n  + count = 3"))
    #expect(await repl.type(":redo").0 == "  nothing to redo")
    #expect(await repl.type(":goto 4").0
      == "  error: :goto takes an action's number from :log, 0 to 3 (:goto 0 is the start)")
    #expect(await repl.type(":goto x").0.hasPrefix("  error: :goto takes"))
    #expect(await repl.type(":goto -1").0.hasPrefix("  error: :goto takes"))
    #expect(await repl.type(":goto 99999999999999999999").0.hasPrefix("  error: :goto takes"))
    #expect(await repl.type(":goto").0.hasPrefix("  error: :goto takes"))
    #expect(repl.session.timeline.position == 3)
  }

  /// An action after a jump back starts a new branch: the undone tail is dropped then, not at
  /// the jump.
  /// Going forward replays the actions' changes, not their effects: said, naming each effect
  /// not run (an attacker's finding: a redone toggle's debounced sort never came, unsaid).
  @Test func goingForwardSaysWhichEffectsAreNotRunAgain() async throws {
    let repl = try Harness(source: Self.todos)
    await repl.type(#"{ type = "add", title = "a" }"#, "later", "later")
    await repl.type(":goto 0")
    let redo = await repl.type(":redo").0
    #expect(!redo.contains("not running now"), "\(redo)")  // an add returns no effect
    let forward = await repl.type(":goto 3").0
    #expect(
      forward.contains(
        "\n  (the effects of the actions gone over are not running now: action 2's effect.after, "
          + "action 3's effect.after; send an action again to start one)"),
      "\(forward)")
    #expect(!(await repl.type(":undo").0).contains("not running now"))  // back: nothing to run
    // What an effect sent, gone over too, is replayed: not named (an attacker's finding: the
    // advice to send again would have applied the pongs twice).
    let sent = try Harness()
    await sent.type("ping", "later", ":advance 1", ":goto 0")
    let over = await sent.type(":goto \(sent.session.timeline.count)").0
    #expect(!over.contains("not running now"), "\(over)")
    // A timer whose ticks were gone over too is named: it would tick on (an attacker's finding:
    // the first rule took its ticks for its end, and said nothing).
    let timer = try Harness(
      source: """
        local effect = require("composable.effect")
        return {
          initial_state = function() return { ticks = 0 } end,
          reduce = function(state, action)
            if action.type == "start" then
              return effect.cancellable(effect.every(1, "tick"), "clock")
            end
            if action.type == "tick" then state.ticks = state.ticks + 1 end
          end,
        }
        """)
    await timer.type("start", ":advance 2", ":goto 0")
    let ticked = await timer.type(":goto 3").0
    #expect(
      ticked.contains(
        #"(the effects of the actions gone over are not running now: action 1's effect.every "#
          + #"id "clock"; send an action again to start one)"#), "\(ticked)")
  }

  @Test func anActionAfterAJumpStartsANewBranch() async throws {
    let repl = try Harness()
    await repl.type("increment", "increment", "increment", ":goto 1")
    #expect(await repl.type("decrement").0 == "  − count = 1\n  + count = 0")
    #expect(await repl.type(":log").0 == """
        1 { type = "increment" }
      ▶ 2 { type = "decrement" }
      """)
    #expect(await repl.type(":redo").0 == "  nothing to redo")
    #expect(await repl.type(":undo").0.hasSuffix("  − count = 0\n  + count = 1"))
  }

  /// A jump cancels the effects in flight and says which; they send nothing afterwards.
  @Test func aJumpCancelsTheEffectsInFlight() async throws {
    let repl = try Harness()
    await repl.type("increment", "later")
    let undone = await repl.type(":undo").0
    let lines = undone.split(separator: "\n").map(String.init)
    #expect(lines.count == 2)
    #expect(lines.first?.hasPrefix("  cancelled #") == true)
    #expect(lines.first?.hasSuffix(" effect.after") == true)
    #expect(lines.last == "  after 1 of 2: { type = \"increment\" }")
    #expect(await repl.type(":effects").0 == "  no effects running")
    await repl.clock.advance(by: .seconds(5))
    await repl.session.settle()
    #expect(await repl.type(":state count").0 == "  1")
    #expect(repl.session.timeline.count == 2)
  }

  /// `env.uuid()` and `env.random()` answer a replayed action as they answered it live (live
  /// generators here, which never repeat), so a recorded action that names an id finds it.
  @Test func envAnswersComeBackAsTheyWere() async throws {
    let repl = try Harness(source: Self.todos)
    await repl.type(#"{ type = "add", title = "a" }"#, #"{ type = "add", title = "b" }"#)
    await repl.type("roll", "roll")
    let ids = try repl.session.feature.evaluate("state.todos[1].id, state.todos[2].id")
    let rolls = try repl.session.feature.evaluate("state.rolls[1], state.rolls[2]")
    #expect(ids[0] != ids[1])
    await repl.type("{ type = \"toggle\", id = \(ids[1]) }")
    let before = try repl.session.feature.state()
    await repl.type(":goto 0", ":goto 5")
    #expect(try repl.session.feature.state() == before)
    await repl.type(":goto 1", ":redo", ":redo", ":redo", ":redo")
    #expect(try repl.session.feature.state() == before)
    #expect(try repl.session.feature.evaluate("state.todos[2].done") == [true])
    #expect(try repl.session.feature.evaluate("state.rolls[1], state.rolls[2]") == rolls)
    #expect(repl.session.timeline.action(1)?.draws.map(\.name) == ["uuid"])
  }

  /// Past the checkpoint interval, a jump is a checkpoint and the actions after it: every state
  /// comes back exactly.
  @Test func jumpsAcrossCheckpointsGiveEveryStateExactly() async throws {
    let repl = try Harness(source: Self.todos)
    var states: [LuaValue] = [try repl.session.feature.state()]
    for index in 1...250 {
      let line =
        index % 3 == 0 ? "roll" : #"{ type = "add", title = "t\#(index)" }"#
      await repl.type(line)
      states.append(try repl.session.feature.state())
    }
    #expect(repl.session.timeline.checkpointCount == 3)
    for number in [250, 0, 199, 200, 201, 1, 99, 100, 101, 137, 250] {
      await repl.type(":goto \(number)")
      #expect(try repl.session.feature.state() == states[number], "after :goto \(number)")
    }
  }
}

/// A jump is a change like any other to a feature that persists: what the person left the
/// state at is what is saved when the session ends.
@Suite struct TimeTravelPersistenceTests {
  @Test func theStateJumpedToIsWhatIsSavedAtTheEnd() throws {
    let directory = try makeTemporaryDirectory("jump-save")
    defer { try? FileManager.default.removeItem(at: directory) }
    for name in ["todos.lua", "todo.lua"] {
      try FileManager.default.copyItem(
        at: URL(fileURLWithPath: example("todos/\(name)")),
        to: directory.appendingPathComponent(name))
    }
    let outcome = try Command.run(
      ["repl", "todos.lua", "--data", "data", "--uuid", "incrementing"],
      input: """
        { type = "add", title = "milk" }
        { type = "add", title = "eggs" }
        :goto 1

        """, in: directory)
    #expect(outcome.status == 0, "\(outcome.errors)")
    let saved = try String(
      contentsOf: directory.appendingPathComponent("data/todos.saved.lua"), encoding: .utf8)
    #expect(saved.contains("milk"))
    #expect(!saved.contains("eggs"))
    // Said at the jump (it was saved over the later state without a word).
    #expect(
      outcome.output.contains(
        "  (todos.saved.lua is saved from this state now, over the later ones; :goto 2 is the "
          + "latest)"), "\(outcome.output)")
    // And :goto 0, which replays nothing, is saved too.
    let again = try Command.run(
      ["repl", "todos.lua", "--data", "data", "--uuid", "incrementing"],
      input: ":goto 0\n{ type = \"add\", title = \"bread\" }\n:goto 0\n", in: directory)
    #expect(again.status == 0)
    let restored = try String(
      contentsOf: directory.appendingPathComponent("data/todos.saved.lua"), encoding: .utf8)
    #expect(restored.contains("milk"))
    #expect(!restored.contains("bread"))
    #expect(again.output.components(separatedBy: "is saved from this state now").count == 2)
    #expect(again.output.contains(":goto 1 is the latest)"), "\(again.output)")
  }

  /// The note is said when what is saved changed: an `:undo` that changed only what `persist`
  /// does not select says nothing of the file (a new user's finding).
  @Test func aJumpThatLeavesTheSavedPartAsItWasSaysNothingOfTheFile() throws {
    let directory = try makeTemporaryDirectory("saved-part")
    defer { try? FileManager.default.removeItem(at: directory) }
    try """
      local composable = require("composable")
      local F = {}
      F.persist = composable.persist{ path = "books.saved.lua", select = "books" }
      function F.initial_state() return { books = {}, open = false } end
      function F.reduce(state, action)
        if action.type == "add" then table.insert(state.books, action.title) end
        if action.type == "open" then state.open = not state.open end
      end
      return F
      """.write(
        to: directory.appendingPathComponent("books.lua"), atomically: true, encoding: .utf8)
    let outcome = try Command.run(
      ["repl", "books.lua", "--data", "data"],
      input: "{ type = \"add\", title = \"Dune\" }\nopen\n:undo\n:undo\n", in: directory)
    #expect(outcome.status == 0, "\(outcome.errors)")
    let notes = outcome.output.components(separatedBy: "\n").filter {
      $0.contains("is saved from this state now")
    }
    #expect(
      notes == [
        "  (books.saved.lua is saved from this state now, over the later ones; :goto 2 is the "
          + "latest)"
      ], "\(outcome.output)")
  }
}
