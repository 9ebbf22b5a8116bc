import Clocks
import Composable
import ComposableLua
import LuaKit
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
}
