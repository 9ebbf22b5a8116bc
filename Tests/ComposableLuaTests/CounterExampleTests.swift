import Clocks
import Composable
import ComposableLua
import LuaKit
import TestSupport
import Testing

/// The counter example, driven from Swift with the TestStore and the state as `LuaValue`.
@Suite struct CounterExampleTests {
  @Test func countsAndLoadsAFact() async throws {
    let clock = TestClock()
    let store = try TestStore(feature: example("counter/counter.lua"), initialState: ["count": 0]) {
      $0.clock = clock
    }
    await store.send("increment") { $0.count = 1 }
    await store.send("increment") { $0.count = 2 }
    await store.send("decrement") { $0.count = 1 }
    await store.send("fact_button_tapped") { $0.is_loading = true }
    await clock.advance(by: .milliseconds(500))
    await store.receive(["type": "fact_response", "ok": true, "body": "1 is a good number."]) {
      $0.is_loading = nil
      $0.fact = "1 is a good number."
    }
  }

  @Test func aWrongExpectationShowsALuaDiff() async throws {
    let store = try TestStore(feature: example("counter/counter.lua"))
    await withKnownIssue {
      await store.send("increment") { $0.count = 5 }
    } matching: { issue in
      message(of: issue) == """
        A state change does not match expectation.

        − count = 5
        + count = 1

        (Expected: −, Actual: +)
        """
    }
  }
}
