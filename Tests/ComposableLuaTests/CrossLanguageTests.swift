import Composable
import ComposableLua
import LuaKit
import TestSupport
import Testing

@Suite struct CrossLanguageTests {
  struct Parent: Equatable, Sendable {
    var total = 0
    var counter: LuaValue
  }

  enum ParentAction: Equatable, Sendable {
    case reset
    case setCount(Int)
    case counter(LuaValue)
  }

  static let counterCase = ActionCase<ParentAction, LuaValue>(
    embed: ParentAction.counter, extract: { if case let .counter(action) = $0 { action } else { nil } })

  /// A Swift parent with the counter feature as its child at `counter`, and `parent` after it.
  static func parentStore(
    _ feature: LuaFeature,
    parent: @escaping @Sendable (inout Parent, ParentAction) -> Effect<ParentAction>
  ) throws -> TestStore<Parent, ParentAction> {
    TestStore(
      initialState: Parent(counter: try feature.state()),
      reducer: { dependencies in
        CombineReducers(
          Scope(state: \Parent.counter, action: Self.counterCase) {
            LuaFeatureReducer<LuaValue>(feature: feature, dependencies: dependencies)
          },
          Reduce(parent))
      })
  }

  @Test func aLuaFeatureIsTheChildOfASwiftReducer() async throws {
    let feature = try LuaFeature(contentsOf: URL(fileURLWithPath: example("counter/counter.lua")))
    let store = try Self.parentStore(feature) { state, action in
      if case .counter = action { state.total += 1 }
      if case .reset = action { state.total = 0 }
      return .none
    }
    await store.send(.counter("increment")) {
      $0.counter.count = 1
      $0.total = 1
    }
    await store.send(.counter("increment")) {
      $0.counter.count = 2
      $0.total = 2
    }
    await store.send(.reset) { $0.total = 0 }
  }

  /// The parent writes to its Lua child's state; the child's next action starts from it.
  @Test func aSwiftParentsWriteReachesItsLuaChild() async throws {
    let feature = try LuaFeature(contentsOf: URL(fileURLWithPath: example("counter/counter.lua")))
    let store = try Self.parentStore(feature) { state, action in
      if case let .setCount(count) = action { state.counter.count = .integer(count) }
      return .none
    }
    await store.send(.counter("increment")) { $0.counter.count = 1 }
    await store.send(.setCount(10)) { $0.counter.count = 10 }
    await store.send(.counter("increment")) { $0.counter.count = 11 }
    #expect(try feature.state().count == 11)
  }

  @Test func aSwiftHigherOrderReducerWrapsALuaFeature() async throws {
    let feature = try LuaFeature(contentsOf: URL(fileURLWithPath: example("counter/counter.lua")))
    let printed = Locked<[String]>([])
    let store = TestStore(
      initialState: try feature.state(),
      reducer: { dependencies in
        LuaFeatureReducer<LuaValue>(feature: feature, dependencies: dependencies)
          .printChanges(to: ChangePrinter { line in printed.withLock { $0.append(line) } })
      })
    await store.send("increment") { $0.count = 1 }
    #expect(printed.withLock { $0 } == [
      """
      received action:
        "increment"
        − count = 0
        + count = 1
      """
    ])
  }
}

import Foundation
