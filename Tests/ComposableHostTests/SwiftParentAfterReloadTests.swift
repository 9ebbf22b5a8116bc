import ComposableHost
import ComposableLua
import Foundation
import TestSupport
import Testing

/// An app embeds hot reload (`HotReload`, the product ComposableHost) under a Swift parent that
/// holds a copy of its Lua child's state: after a save whose `migrate(state)` changes the state,
/// the parent's copy shows the migration once the app sends `refreshAction` (no Lua runs for
/// it), and a copy the parent left as it was is not written back over the migration.
@Suite(.serialized) struct SwiftParentAfterReloadTests {
  struct Parent: Equatable, Sendable {
    var todos: LuaValue
    var seen = 0
  }

  enum Action: Equatable, Sendable {
    case todos(LuaValue)
    case seen
  }

  static let todosCase = ActionCase<Action, LuaValue>(
    embed: Action.todos, extract: { if case let .todos(action) = $0 { action } else { nil } })

  static let before = """
    return {
      initial_state = function() return { items = {} } end,
      reduce = function(state, action)
        if action.type == "add" then table.insert(state.items, action.title) end
      end,
    }
    """

  /// The same reducer, with `migrate` giving every state a `version`.
  static let after = """
    return {
      initial_state = function() return { items = {}, version = 2 } end,
      migrate = function(state) state.version = 2 return state end,
      reduce = function(state, action)
        if action.type == "add" then table.insert(state.items, action.title) end
      end,
    }
    """

  /// A store as an app makes it: the Lua child scoped into its Swift parent, which also changes
  /// its own copy of the child's state (as a parent may).
  static func store(_ feature: LuaFeature) throws -> Store<Parent, Action> {
    Store(initialState: Parent(todos: try feature.state())) { dependencies in
      CombineReducers(
        Scope(state: \Parent.todos, action: Self.todosCase) {
          LuaFeatureReducer<LuaValue>(feature: feature, dependencies: dependencies)
        },
        Reduce { state, action in
          if action == .seen {
            state.seen += 1
            state.todos.seen = .integer(state.seen)  // the parent writes its copy of the child's
          }
          return .none
        })
    }
  }

  @Test func aReloadsMigrationReachesTheParentsCopy() async throws {
    let directory = try makeTemporaryDirectory("parent-reload")
    let file = directory.appendingPathComponent("todos.lua")
    try Self.before.write(to: file, atomically: false, encoding: .utf8)
    let feature = try LuaFeature(contentsOf: file)
    let store = try Self.store(feature)
    await store.send(.todos(["type": "add", "title": "milk"])).finish()
    let reloaded = Locked(0)
    let reload = try HotReload(feature: feature, file: file) { _ in
      HotReload.reload(feature, from: file, report: { _ in }, fail: { _ in })
      await store.send(.todos(LuaFeatureReducer<LuaValue>.refreshAction)).finish()
      reloaded.withLock { $0 += 1 }
    }
    defer { reload.stop() }
    try Self.after.write(to: file, atomically: true, encoding: .utf8)
    for _ in 0..<6000 where reloaded.withLock({ $0 }) == 0 {
      try await Task.sleep(for: .milliseconds(10))
    }
    #expect(reloaded.withLock { $0 } == 1)
    #expect(await store.state.todos == ["items": ["milk"], "version": 2])
    #expect(try feature.state() == ["items": ["milk"], "version": 2])
  }

  /// Without the refresh, the parent's copy is stale until the child's next action; when the
  /// parent left the copy as it was, that action runs on the migrated state and the copy is
  /// read again. The parent's writes reach Lua before and after, as always.
  @Test func aChildActionAfterTheMigrationRunsOnTheMigratedState() async throws {
    let feature = try LuaFeature(source: Self.before, file: "todos.lua")
    let store = try Self.store(feature)
    await store.send(.todos(["type": "add", "title": "milk"])).finish()
    await store.send(.seen).finish()
    await store.send(.todos(["type": "add", "title": "eggs"])).finish()
    #expect(await store.state.todos == ["items": ["milk", "eggs"], "seen": 1])
    try feature.swap(toSource: Self.after)
    #expect(await store.state.todos == ["items": ["milk", "eggs"], "seen": 1])  // stale
    await store.send(.todos(["type": "add", "title": "jam"])).finish()
    #expect(
      await store.state.todos == ["items": ["milk", "eggs", "jam"], "seen": 1, "version": 2])
    await store.send(.seen).finish()
    await store.send(.todos(["type": "add", "title": "tea"])).finish()
    #expect(
      await store.state.todos
        == ["items": ["milk", "eggs", "jam", "tea"], "seen": 2, "version": 2])
  }

  /// A swap before the child's first action, then the refresh: the copy the store started with
  /// is not written over the migration.
  @Test func aRefreshBeforeTheFirstActionKeepsTheMigration() async throws {
    let feature = try LuaFeature(source: Self.before, file: "todos.lua")
    let store = try Self.store(feature)
    try feature.swap(toSource: Self.after)
    await store.send(.todos(LuaFeatureReducer<LuaValue>.refreshAction)).finish()
    #expect(await store.state.todos == ["items": [:], "version": 2])
    #expect(try feature.state() == ["items": [:], "version": 2])
  }

  /// A parent written as a `body` makes its Lua child's reducer again for every action; the
  /// copy it gave out is the feature's, so a migration is kept as with a reducer made once.
  @Test func aBodyParentKeepsTheMigration() async throws {
    struct BodyParent: Reducer {
      let feature: LuaFeature
      let dependencies: DependencyValues
      var body: some Reducer<Parent, Action> {
        Scope(state: \Parent.todos, action: SwiftParentAfterReloadTests.todosCase) {
          LuaFeatureReducer<LuaValue>(feature: feature, dependencies: dependencies)
        }
      }
    }
    let feature = try LuaFeature(source: Self.before, file: "todos.lua")
    let store = Store(initialState: Parent(todos: try feature.state())) { dependencies in
      BodyParent(feature: feature, dependencies: dependencies)
    }
    await store.send(.todos(["type": "add", "title": "milk"])).finish()
    try feature.swap(toSource: Self.after)
    await store.send(.todos(["type": "add", "title": "eggs"])).finish()
    #expect(await store.state.todos == ["items": ["milk", "eggs"], "version": 2])
  }

  /// The refresh is not an action of the feature: its reducer never sees it, and a swap without
  /// `migrate` leaves a parent's own later writes to its copy going to Lua as before.
  @Test func theRefreshRunsNoLuaAndWritesStillGoBack() async throws {
    let feature = try LuaFeature(
      source: """
        return {
          initial_state = function() return { seen = {} } end,
          reduce = function(state, action) table.insert(state.seen, action.type) end,
        }
        """, file: "seen.lua")
    let store = try Self.store(feature)
    await store.send(.todos(LuaFeatureReducer<LuaValue>.refreshAction)).finish()
    await store.send(.todos("one")).finish()
    #expect(await store.state.todos == ["seen": ["one"]])
  }
}
