import Composable
import Foundation
import Testing

@Suite struct SingleThreadExecutorTests {
  enum Action: Equatable, Sendable {
    case start
    case tick(Int)
  }

  struct State: Equatable, Sendable { var ticks: [Int] = [] }

  /// Sends three ticks back, each after `interval` on `clock`, noting the thread each runs on.
  static func ticking(
    clock: any Clock<Duration>, interval: Duration = .seconds(1), threads: Locked<Set<UInt>>
  ) -> Reduce<State, Action> {
    Reduce { state, action in
      switch action {
      case .start:
        return .run { send in
          for tick in 1...3 {
            try? await clock.sleep(for: interval)
            threads.update { _ = $0.insert(UInt(bitPattern: Int(bitPattern: pthread_self()))) }
            await send(.tick(tick))
          }
        }
      case let .tick(tick):
        state.ticks.append(tick)
        return .none
      }
    }
  }

  @Test func theStoreAndItsEffectsRunOnTheExecutorsThread() async {
    let executor = SingleThreadExecutor()
    defer { executor.stop() }
    let threads = Locked<Set<UInt>>([])
    let runThread = await executor.run { () -> UInt in
      // The executor plugs in through the dependencies: the Store knows no test executor.
      let store = Store(
        initialState: State(), dependencies: { $0.effectExecutor = executor },
        reducer: { _ in
          Self.ticking(clock: ContinuousClock(), interval: .milliseconds(5), threads: threads)
        })
      await store.send(.start).finish()
      #expect(await store.state.ticks == [1, 2, 3])
      return UInt(bitPattern: Int(bitPattern: pthread_self()))
    }
    #expect(threads.current == [runThread])
  }

  @Test func settleReturnsOnceEveryReadyJobHasRun() async {
    let executor = SingleThreadExecutor()
    defer { executor.stop() }
    let steps = await executor.run { () -> Int in
      let steps = Locked(0)
      // Work that needs many turns of the queue, started without being awaited.
      Task(executorPreference: SingleThreadExecutor.current) {
        for _ in 0..<100 {
          steps.update { $0 += 1 }
          await Task.yield()
        }
      }
      await SingleThreadExecutor.current?.settle()
      return steps.current
    }
    #expect(steps == 100)
  }

  @Test func aTestStoreOnTheExecutorWaitsForExactlyTheWorkItStarted() async {
    let executor = SingleThreadExecutor()
    defer { executor.stop() }
    await executor.run {
      let clock = ManualClock()
      let threads = Locked<Set<UInt>>([])
      let store = TestStore(
        initialState: State(), reducer: Self.ticking(clock: clock, threads: threads))
      await store.send(.start)
      await clock.advance(by: .seconds(1))
      await store.receive(.tick(1)) { $0.ticks = [1] }
      await clock.advance(by: .seconds(2))
      await store.receive(.tick(2)) { $0.ticks = [1, 2] }
      await store.receive(.tick(3)) { $0.ticks = [1, 2, 3] }
      await store.finish()
    }
  }
}
