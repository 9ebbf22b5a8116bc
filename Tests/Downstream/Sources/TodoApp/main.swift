import CasePaths  // @CasePathable
import ComposableLua  // the one import: Store, Reducer, Effect, LuaValue and LuaFeature
import Foundation

/// A Swift parent with the Lua todo list as its child, written as TCA 1.x writes one.
struct App: Reducer {
  struct State: Equatable, Sendable {
    var todos: LuaValue
    var added = 0
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case todos(LuaValue)
  }

  let feature: LuaFeature
  let dependencies: DependencyValues

  var body: some Reducer<State, Action> {
    Scope(state: \.todos, action: \.todos) {
      LuaFeatureReducer<LuaValue>(feature: feature, dependencies: dependencies)
    }
    Reduce { state, action in
      if case let .todos(child) = action, child.type == "add" { state.added += 1 }
      return .none
    }
  }
}

let file = Bundle.module.url(forResource: "todos", withExtension: "lua")!
let feature = try LuaFeature(contentsOf: file)
let store = Store(initialState: App.State(todos: try feature.state())) { dependencies in
  App(feature: feature, dependencies: dependencies)
}
await store.send(.todos(["type": "add", "title": "milk"])).finish()
await store.send(.todos(["type": "add", "title": "eggs"])).finish()
await store.send(.todos(["type": "toggle", "id": 1])).finish()
await store.send(.todos("sort")).finish()
let state = await store.state
let titles = state.todos.todos.tableValue?.sequence.map { $0.title.stringValue ?? "?" } ?? []
print("todos: \(titles), added: \(state.added)")
