import Clocks
import Composable
import ComposableLua
import LuaKit
import TestSupport
import Testing

@Suite struct LuaCompositionTests {
  /// A todos list in Lua: an identified array of todos each with its own reducer, a delayed
  /// effect per todo, and a parent that adds and removes.
  static let todos = """
    local composable = require("composable")
    local effect = composable.effect

    local Todo = {}
    function Todo.reduce(todo, action)
      if action.type == "toggle" then
        todo.done = not todo.done
      elseif action.type == "remind" then
        return effect.after(1, "reminded")
      elseif action.type == "reminded" then
        todo.reminded = true
      end
    end

    local function parent(state, action)
      if action.type == "add" then
        table.insert(state.todos, { id = action.id, title = action.title, done = false })
      elseif action.type == "remove" then
        for i, todo in ipairs(state.todos) do
          if todo.id == action.id then table.remove(state.todos, i) break end
        end
      end
    end

    return {
      initial_state = function() return { todos = {} } end,
      reduce = composable.combine(
        parent,
        composable.for_each{ state = "todos", action = "todo", reducer = Todo }
      ),
    }
    """

  @Test func forEachRoutesToTheElementById() async throws {
    let store = try testStore(Self.todos, file: "todos.lua")
    await store.send(["type": "add", "id": 1, "title": "milk"]) {
      $0.todos = [["id": 1, "title": "milk", "done": false]]
    }
    await store.send(["type": "add", "id": 2, "title": "eggs"]) {
      $0.todos[2] = ["id": 2, "title": "eggs", "done": false]
    }
    await store.send(["type": "todo", "id": 2, "action": "toggle"]) {
      $0.todos[2].done = true
    }
  }

  @Test func elementEffectsComeBackWrappedAndDieWithTheElement() async throws {
    let clock = TestClock()
    let store = try testStore(Self.todos, file: "todos.lua") { $0.clock = clock }
    await store.send(["type": "add", "id": 1, "title": "milk"]) {
      $0.todos = [["id": 1, "title": "milk", "done": false]]
    }
    await store.send(["type": "add", "id": 2, "title": "eggs"]) {
      $0.todos[2] = ["id": 2, "title": "eggs", "done": false]
    }
    await store.send(["type": "todo", "id": 1, "action": "remind"])
    await store.send(["type": "todo", "id": 2, "action": "remind"])
    await store.send(["type": "remove", "id": 1]) {
      $0.todos = [["id": 2, "title": "eggs", "done": false]]
    }
    await clock.advance(by: .seconds(1))
    await store.receive(["type": "todo", "id": 2, "action": ["type": "reminded"]]) {
      $0.todos[1].reminded = true
    }
    await store.finish()
  }

  @Test func anActionForAMissingElementIsAnError() async throws {
    let store = try testStore(Self.todos, file: "todos.lua")
    await withKnownIssue {
      await store.send(["type": "todo", "id": 9, "action": "toggle"])
    } matching: { issue in
      // At the line of the feature that made the for_each: Lua would place it in the library.
      message(of: issue).contains(
        "todos.lua:\(Self.line(of: "composable.for_each{", in: Self.todos)): for_each: an action "
          + "arrived for todos element 9, which is not there")
    }
  }

  static let scoped = """
    local composable = require("composable")
    local effect = composable.effect
    local Counter = {
      reduce = function(state, action)
        if action.type == "increment" then state.count = state.count + 1
        elseif action.type == "later" then return effect.after(1, "increment") end
      end,
    }
    return {
      initial_state = function() return { counter = { count = 0 }, detail = nil } end,
      reduce = composable.combine(
        function(state, action)
          if action.type == "open" then state.detail = { count = 10 }
          elseif action.type == "close" then state.detail = nil end
        end,
        composable.on_change{
          of = function(state) return state.counter.count >= 2 end,
          run = function(old, new, state) state.big = new end,
          reducer = composable.scope{ state = "counter", action = "counter", reducer = Counter },
        },
        composable.if_let{ state = "detail", action = "detail", reducer = Counter }
      ),
    }
    """

  @Test func scopeRunsTheChildAndWrapsItsEffects() async throws {
    let clock = TestClock()
    let store = try testStore(Self.scoped, file: "scoped.lua") { $0.clock = clock }
    await store.send(["type": "counter", "action": "increment"]) { $0.counter.count = 1 }
    await store.send(["type": "counter", "action": "later"])
    await clock.advance(by: .seconds(1))
    await store.receive(["type": "counter", "action": ["type": "increment"]]) {
      $0.counter.count = 2
      $0.big = true
    }
  }

  @Test func ifLetCancelsTheChildsEffectsWhenItGoes() async throws {
    let clock = TestClock()
    let store = try testStore(Self.scoped, file: "scoped.lua") { $0.clock = clock }
    await store.send("open") { $0.detail = ["count": 10] }
    await store.send(["type": "detail", "action": "increment"]) { $0.detail.count = 11 }
    await store.send(["type": "detail", "action": "later"])
    await store.send("close") { $0.detail = nil }
    await clock.advance(by: .seconds(2))
    await store.finish()
  }

  @Test func aChildActionWithoutTheChildIsAnError() async throws {
    let store = try testStore(Self.scoped, file: "scoped.lua")
    await withKnownIssue {
      await store.send(["type": "detail", "action": "increment"])
    } matching: { issue in
      message(of: issue).contains(
        "scoped.lua:\(Self.line(of: "composable.if_let{", in: Self.scoped)): if_let: a child "
          + "action arrived while state.detail is nil")
    }
  }

  /// The line of `source` (from 1) that holds `text`.
  static func line(of text: String, in source: String) -> Int {
    (source.split(separator: "\n", omittingEmptySubsequences: false).firstIndex {
      $0.contains(text)
    } ?? -1) + 1
  }
}
