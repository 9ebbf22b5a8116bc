import Composable
import ComposableLua
import LuaKit
import Testing

/// A Lua child that refuses an action (raises, and is rolled back) fails the action for its
/// Swift parent: the parent's own logic after the child does not run for it, and the child's
/// `sendingOnFailure` tells the parent, which receives it as any action of the child.
@Suite struct LuaChildRefusalTests {
  struct Parent: Equatable, Sendable {
    var added = 0
    var audit: [String] = []
    var todos: LuaValue
  }

  enum Action: Equatable, Sendable {
    case todos(LuaValue)
  }

  static let todosCase = ActionCase<Action, LuaValue>(
    embed: Action.todos, extract: { if case let .todos(action) = $0 { action } else { nil } })

  static let source = """
    return {
      initial_state = function() return { items = {} } end,
      reduce = function(state, action)
        if action.type == "add" then
          if action.title == "" then error("a todo needs a title") end
          table.insert(state.items, action.title)
        end
      end,
    }
    """

  /// The parent counts and audits each add its child took.
  static func store(
    onFailure: (@Sendable (LuaFeatureError) -> LuaValue?)? = nil
  ) throws -> TestStore<Parent, Action> {
    let feature = try LuaFeature(source: source, file: "todos.lua")
    return TestStore(
      initialState: Parent(todos: try feature.state()),
      reducer: { dependencies in
        CombineReducers(
          Scope(state: \Parent.todos, action: Self.todosCase) {
            let child = LuaFeatureReducer<LuaValue>(feature: feature, dependencies: dependencies)
            return onFailure.map { child.sendingOnFailure($0) } ?? child
          },
          Reduce { state, action in
            guard case let .todos(child) = action else { return .none }
            if child.type == "add" {
              state.added += 1
              state.audit.append("added \(child.title)")
            }
            if child.type == "refused" { state.audit.append("refused: \(child.reason)") }
            return .none
          })
      })
  }

  @Test func theParentDoesNotCountAnActionItsChildRefused() async throws {
    let store = try Self.store()
    await store.send(.todos(["type": "add", "title": "milk"])) {
      $0.todos = ["items": ["milk"]]
      $0.added = 1
      $0.audit = [#"added "milk""#]
    }
    await withKnownIssue {
      await store.send(.todos(["type": "add", "title": ""]))  // nothing changes
    } matching: { issue in
      "\(issue)".contains("a todo needs a title")
    }
  }

  @Test func sendingOnFailureTellsTheParent() async throws {
    let store = try Self.store { error in
      guard case let .reduce(_, lua) = error else { return nil }
      return ["type": "refused", "reason": .string(LuaString(lua.message))]
    }
    await withKnownIssue {
      await store.send(.todos(["type": "add", "title": ""]))
    } matching: { issue in
      "\(issue)".contains("a todo needs a title")
    }
    await store.receive(.todos(["type": "refused", "reason": "todos.lua:5: a todo needs a title"]))
    {
      $0.audit = [#"refused: "todos.lua:5: a todo needs a title""#]
    }
  }

  /// The failure action reaches the child too; a child that refuses what it does not know
  /// refuses it, and no further one is sent: the store settles instead of looping.
  @Test func aChildThatRefusesTheFailureActionStopsThere() async throws {
    let feature = try LuaFeature(
      source: """
        return {
          initial_state = function() return { n = 0 } end,
          reduce = function(state, action)
            if action.type ~= "add" then error("unknown action " .. action.type) end
            state.n = state.n + 1
          end,
        }
        """, file: "strict.lua")
    let store = TestStore(
      initialState: Parent(todos: try feature.state()),
      reducer: { dependencies in
        Scope(state: \Parent.todos, action: Self.todosCase) {
          LuaFeatureReducer<LuaValue>(feature: feature, dependencies: dependencies)
            .sendingOnFailure { _ in ["type": "refused"] }
        }
      })
    await withKnownIssue {
      await store.send(.todos("bogus"))
      await store.receive(.todos("refused"))
      await store.finish()
    } matching: { issue in
      "\(issue)".contains("unknown action")
    }
  }

  /// The same stop in every composition that runs a child before its parent.
  @Test func combineStopsAtAFailureAndDropsWhatCameBefore() {
    var ran: [String] = []
    var state = 0
    let combined = CombineReducers<Int, String>(
      Reduce { _, _ in
        ran.append("first")
        return .send("from first")
      },
      Reduce { _, _ in
        ran.append("refuses")
        return .failure(ActionFailure(LuaError.runtime(message: "no", traceback: "")))
      },
      Reduce { _, _ in
        ran.append("after")
        return .none
      })
    let effect = combined.reduce(into: &state, action: "go")
    #expect(ran == ["first", "refuses"])
    #expect(effect.failure?.description == "no")
  }
}
