import Clocks
import Composable
import Testing

@Suite struct CancellationTests {
  enum Action: Equatable, Sendable {
    case search(String)
    case cancel
    case tap
    case response(String)
  }

  struct State: Equatable, Sendable { var results: [String] = [] }

  func reducer(clock: TestClock<Duration>, latest: Bool = true) -> Reduce<State, Action> {
    Reduce { state, action in
      switch action {
      case let .search(query):
        return .run { send in
          try await clock.sleep(for: .seconds(1))
          await send(.response(query))
        }
        .cancellable(id: "search", cancelInFlight: true)
      case .cancel:
        return .cancel(id: "search")
      case .tap:
        return .send(.response("tap")).throttle(id: "tap", for: .seconds(1), clock: clock, latest: latest)
      case let .response(text):
        state.results.append(text)
        return .none
      }
    }
  }

  @Test func cancelInFlightKeepsOnlyTheNewest() async {
    let clock = TestClock()
    let store = TestStore(initialState: State(), reducer: reducer(clock: clock))
    await store.send(.search("a"))
    await clock.advance(by: .milliseconds(500))
    await store.send(.search("ab"))
    await clock.advance(by: .seconds(1))
    await store.receive(.response("ab")) { $0.results = ["ab"] }
    await store.finish()
  }

  @Test func cancelByIDDeliversNothing() async {
    let clock = TestClock()
    let store = TestStore(initialState: State(), reducer: reducer(clock: clock))
    await store.send(.search("a"))
    await store.send(.cancel)
    await clock.advance(by: .seconds(5))
    await store.finish()
  }

  @Test func debounceRunsOnlyTheLastOfABurst() async {
    let clock = TestClock()
    let store = TestStore(initialState: State(), reducer: Reduce<State, Action> { state, action in
      switch action {
      case let .search(query):
        return .send(.response(query)).debounce(id: "debounce", for: .seconds(1), clock: clock)
      case let .response(text):
        state.results.append(text)
        return .none
      default:
        return .none
      }
    })
    await store.send(.search("a"))
    await clock.advance(by: .milliseconds(500))
    await store.send(.search("ab"))
    await clock.advance(by: .milliseconds(500))
    await store.send(.search("abc"))
    await clock.advance(by: .milliseconds(999))
    #expect(store.state.results.isEmpty)
    await clock.advance(by: .milliseconds(1))
    await store.receive(.response("abc")) { $0.results = ["abc"] }
    await store.finish()
  }

  @Test func throttleStartsTheFirstAtOnceAndTheLatestAtTheWindowEnd() async {
    let clock = TestClock()
    let store = TestStore(initialState: State(), reducer: reducer(clock: clock))
    await store.send(.tap)
    await store.receive(.response("tap")) { $0.results = ["tap"] }
    await store.send(.tap)
    await store.send(.tap)
    await clock.advance(by: .milliseconds(999))
    await clock.advance(by: .milliseconds(1))
    await store.receive(.response("tap")) { $0.results = ["tap", "tap"] }
    await clock.advance(by: .seconds(5))
    await store.send(.tap)
    await store.receive(.response("tap")) { $0.results = ["tap", "tap", "tap"] }
    await store.finish()
  }
}
