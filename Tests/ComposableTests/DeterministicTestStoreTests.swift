import Composable
import Foundation
import Testing

/// A TestStore is deterministic without the test knowing about executors: with no executor
/// given, it runs the store and every effect on a thread of its own, each call waits for exactly
/// the work it started, and a `ManualClock` advanced from the test settles that thread after
/// each wake-up. Run 50 times in parallel (Swift Testing's default for arguments), on a busy
/// machine: the same result every time.
@Suite struct DeterministicTestStoreTests {
  enum Action: Equatable, Sendable {
    case start, stop, tick, delayed(Int)
  }

  struct State: Equatable, Sendable {
    var ticks = 0
    var delayed: [Int] = []
  }

  static func feature(clock: ManualClock) -> Reduce<State, Action> {
    Reduce { state, action in
      switch action {
      case .start:
        return .merge(
          Effect.timer(every: .seconds(1), clock: clock, send: .tick)
            .cancellable(id: "timer", cancelInFlight: true),
          // Chained work on the clock and off it: each step starts the next, after more hops
          // than a guessed number of yields covers (work an effect does between two sleeps).
          .run { send in
            for step in 1...3 {
              try? await clock.sleep(for: .milliseconds(1500))
              for _ in 0..<100 { await Task.yield() }
              await send(.delayed(step))
            }
          })
      case .stop:
        return .cancel(id: "timer")
      case .tick:
        state.ticks += 1
        return .none
      case let .delayed(step):
        state.delayed.append(step)
        return .none
      }
    }
  }

  @Test(arguments: 0..<50)
  func aTimerTestGivesTheSameResultEveryRun(_ run: Int) async {
    let clock = ManualClock()
    let store = TestStore(
      initialState: State(), reducer: { _ in Self.feature(clock: clock) },
      dependencies: { $0.clock = clock })
    await store.send(.start)
    // Several wake-ups in one advance, timers and chained sleeps interleaved.
    await clock.advance(by: .seconds(3))
    await store.receive(.tick) { $0.ticks = 1 }
    await store.receive(.delayed(1)) { $0.delayed = [1] }
    await store.receive(.tick) { $0.ticks = 2 }
    // Both due at 3 s: the chained sleep went to sleep first (at 1.5 s, the timer's at 2 s).
    await store.receive(.delayed(2)) { $0.delayed = [1, 2] }
    await store.receive(.tick) { $0.ticks = 3 }
    await clock.advance(by: .milliseconds(1500))
    await store.receive(.tick) { $0.ticks = 4 }
    await store.receive(.delayed(3)) { $0.delayed = [1, 2, 3] }
    await store.send(.stop)
    await store.finish()
  }
}
