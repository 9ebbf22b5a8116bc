import Clocks
import Composable
import Foundation
import ComposableLua
import LuaKit
import TestSupport
import Testing

/// The counter example driven with Swift types: a Codable state and an action enum.
@Suite struct TypedFeatureTests {
  struct CounterState: Codable, Equatable, Sendable {
    var count: Int
    var fact: String?
    var is_loading: Bool?
  }

  enum CounterAction: Codable, Equatable, Sendable {
    case increment
    case decrement
    case fact_button_tapped
    case fact_response(ok: Bool, body: String)
  }

  @Test func typedStateAndActions() async throws {
    let clock = TestClock()
    let store = try TestStore<CounterState, CounterAction>(
      feature: example("counter/counter.lua"), initialState: CounterState(count: 0)
    ) { $0.clock = clock }
    await store.send(.increment) { $0.count = 1 }
    await store.send(.fact_button_tapped) { $0.is_loading = true }
    await clock.advance(by: .milliseconds(500))
    await store.receive(.fact_response(ok: true, body: "1 is a good number.")) {
      $0.is_loading = nil
      $0.fact = "1 is a good number."
    }
  }

  @Test func anActionThatDoesNotDecodeIsReported() async throws {
    let feature = try LuaFeature(source: """
      local effect = require("composable.effect")
      return {
        initial_state = function() return { count = 0 } end,
        reduce = function(state, action)
          if action.type == "increment" then return effect.send("mystery") end
        end,
      }
      """, file: "mystery.lua")
    struct Count: Codable, Equatable, Sendable { var count: Int }
    let store = TestStore(
      initialState: Count(count: 0),
      reducer: { LuaFeatureCodableReducer<Count, CounterAction>(feature: feature, dependencies: $0) })
    await withKnownIssue {
      await store.send(.increment)
      await store.finish()
    } matching: { issue in
      message(of: issue) == #"action.type: "mystery" is not a case of CounterAction"#
    }
  }

  /// A Swift action that is not in the action shape (a struct has no `type`) is refused as any
  /// malformed action is, named as Swift shows it, and the state stays.
  @Test func aSwiftActionWithoutATypeIsRefusedInTheSameWords() throws {
    struct Ping: Codable, Sendable { let n: Int }
    let feature = try LuaFeature(contentsOf: URL(fileURLWithPath: example("counter/counter.lua")))
    let errors = Locked<[LuaFeatureError]>([])
    let reducer = LuaFeatureCodableReducer<CounterState, Ping>(
      feature: feature, dependencies: .test, onError: { error in errors.withLock { $0.append(error) } })
    var state = try feature.decodeState(CounterState.self)
    _ = reducer.reduce(into: &state, action: Ping(n: 1))
    #expect(errors.withLock { $0.map(\.description) } == [
      "the action Ping(n: 1) was refused before the reducer ran: expected an action (a table "
        + "with a string type, or a string), got Ping(n: 1)"
    ])
    #expect(state == CounterState(count: 0))
  }
}
