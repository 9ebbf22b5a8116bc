import Clocks
import Composable
import Foundation
import Testing

/// Timers are tasks asleep on the clock, not threads: 500 of them in one store.
@Suite struct ManyTimersTests {
  enum Action: Equatable, Sendable {
    case start(Int)
    case tick
  }

  /// The threads of this process, from /proc.
  static func threadCount() throws -> Int {
    let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
    let line = status.split(separator: "\n").first { $0.hasPrefix("Threads:") } ?? ""
    return Int(line.split(separator: "\t").last.map(String.init)?.trimmingCharacters(in: .whitespaces) ?? "") ?? -1
  }

  @Test func fiveHundredTimersCostNoThreadEach() async throws {
    let clock = TestClock()
    let store = Store(initialState: 0, reducer: Reduce<Int, Action> { ticks, action in
      switch action {
      case let .start(count):
        return .merge((0..<count).map { id in
          Effect<Action>.timer(every: .seconds(1), clock: clock, send: .tick).cancellable(id: id)
        })
      case .tick:
        ticks += 1
        return .none
      }
    })
    let before = try Self.threadCount()
    let task = await store.send(.start(500))
    for _ in 0..<50 { await Task.yield() }
    #expect(await store.runningEffectCount == 500)
    // No thread per timer: 500 timers, far fewer new threads (the count is for the whole process,
    // where other tests start servers and sessions at the same time).
    #expect(try Self.threadCount() - before < 100)
    await clock.advance(by: .seconds(1))
    let deadline = ContinuousClock.now + .seconds(5)
    while await store.state < 500, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
    #expect(await store.state == 500)
    task.cancel()
    await task.finish()
  }
}
