import Composable
import Testing

@Suite struct ManualClockTests {
  @Test func advanceWakesSleepersEarliestFirstEachAtItsDeadline() async {
    let executor = SingleThreadExecutor()
    defer { executor.stop() }
    let woken = await executor.run { () -> [String] in
      let clock = ManualClock()
      let woken = Locked<[String]>([])
      for (name, seconds) in [("three", 3), ("one", 1), ("two", 2), ("ten", 10)] {
        Task(executorPreference: SingleThreadExecutor.current) {
          try await clock.sleep(for: .seconds(seconds))
          woken.update { $0.append("\(name) at \(clock.now.offset)") }
        }
      }
      await clock.advance(by: .seconds(5))
      #expect(clock.now.offset == .seconds(5))
      #expect(clock.sleeperCount == 1)
      return woken.current
    }
    #expect(woken == ["one at 1.0 seconds", "two at 2.0 seconds", "three at 3.0 seconds"])
  }

  @Test func aSleepUntilNowWaitsForAnAdvanceAndOneInThePastReturnsAtOnce() async throws {
    let executor = SingleThreadExecutor()
    defer { executor.stop() }
    try await executor.run {
      let clock = ManualClock()
      let woke = Locked(false)
      Task(executorPreference: SingleThreadExecutor.current) {
        try await clock.sleep(until: clock.now)
        woke.update { $0 = true }
      }
      await SingleThreadExecutor.current?.settle()
      #expect(woke.current == false)
      await clock.advance()
      #expect(woke.current == true)
      try await clock.sleep(until: clock.now.advanced(by: .seconds(-1)))
    }
  }

  @Test func cancellingASleepThrowsAndForgetsIt() async {
    let executor = SingleThreadExecutor()
    defer { executor.stop() }
    await executor.run {
      let clock = ManualClock()
      let sleep = Task(executorPreference: SingleThreadExecutor.current) {
        try await clock.sleep(for: .seconds(1))
      }
      await SingleThreadExecutor.current?.settle()
      #expect(clock.sleeperCount == 1)
      sleep.cancel()
      await #expect(throws: CancellationError.self) { try await sleep.value }
      #expect(clock.sleeperCount == 0)
    }
  }
}
