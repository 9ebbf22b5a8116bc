import Clocks
import Composable
import Logging
import Testing

@Suite struct DebuggingTests {
  final class Lines: Sendable {
    let lines = Locked<[String]>([])
    func append(_ line: String) { lines.update { $0.append(line) } }
    var all: [String] { lines.current }
  }

  @Test func printChangesShowsTheActionAndTheDiff() async {
    let lines = Lines()
    let store = TestStore(
      initialState: Counter.State(),
      reducer: Counter(clock: ImmediateClock()).printChanges(to: ChangePrinter(lines.append)))
    await store.send(.increment) { $0.count = 1 }
    await store.send(.incrementLater)
    // The effect runs on the global executor: on a loaded machine it may take more than the
    // TestStore's one second (a receive that gets its action returns at once).
    await store.receive(.incremented, timeout: .seconds(30)) { $0.count = 2 }
    #expect(lines.all == [
      """
      received action:
        Counter.Action.increment
          Counter.State(
        -   count: 0,
        +   count: 1,
            isTimerOn: false
          )
      """,
      """
      received action:
        Counter.Action.incrementLater
        (No state changes)
      """,
      """
      received action:
        Counter.Action.incremented
          Counter.State(
        -   count: 1,
        +   count: 2,
            isTimerOn: false
          )
      """,
    ])
  }

  /// Collects log messages in memory.
  struct CollectingHandler: LogHandler {
    let lines: Lines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
      get { metadata[key] }
      set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
      lines.append("\(event.message)" + (event.metadata?["duration_us"] != nil ? " (timed)" : ""))
    }
  }

  @Test func loggedReportsTimingAndTheLifeOfEffects() async {
    let lines = Lines()
    let logger = Logger(label: "test") { _ in CollectingHandler(lines: lines) }
    let clock = TestClock()
    let store = TestStore(
      initialState: Counter.State(), reducer: Counter(clock: clock).logged(to: logger))
    await store.send(.incrementLater)
    await clock.advance(by: .seconds(1))
    await store.receive(.incremented) { $0.count = 1 }
    await store.finish()
    let cancelled = await store.send(.incrementLater)
    cancelled.cancel()
    await cancelled.finish()
    #expect(lines.all == [
      "reduced Counter.Action.incrementLater (timed)",
      "effect started",
      "effect sent Counter.Action.incremented",
      "reduced Counter.Action.incremented (timed)",
      "effect finished",
      "reduced Counter.Action.incrementLater (timed)",
      "effect started",
      "effect cancelled",
    ])
  }
}
