import Clocks
import Composable
import Testing

@Suite struct NonExhaustiveTests {
  @Test func onlyWhatIsMentionedIsChecked() async {
    let store = TestStore(initialState: Counter.State(), reducer: Counter(clock: ImmediateClock()))
    store.exhaustivity = .off
    await store.send(.addTwice)  // two received actions, never asserted
    await store.send(.increment) { $0.count = 3 }
    await store.send(.increment)  // an unasserted change
  }

  @Test func receiveSkipsToTheMatchingAction() async {
    let store = TestStore(initialState: StoreTests.State(), reducer: Reduce<StoreTests.State, StoreTests.Action> {
      state, action in
      switch action {
      case .start: return .merge(.send(.log("a")), .send(.log("b")), .send(.log("c")))
      case let .log(text):
        state.log.append(text)
        return .none
      case .child: return .none
      }
    })
    store.exhaustivity = .off
    await store.send(.start)
    await store.receive(.log("c")) { $0.log = ["a", "b", "c"] }
  }

  @Test func aWrongMentionStillFails() async {
    let store = TestStore(initialState: Counter.State(), reducer: Counter(clock: ImmediateClock()))
    store.exhaustivity = .off
    await withKnownIssue {
      await store.send(.increment) { $0.count = 5 }
    } matching: { issue in
      message(of: issue).hasPrefix("A state change does not match expectation.")
    }
  }

  @Test func skippedAssertionsCanBeShownAsWarnings() async {
    let store = TestStore(initialState: Counter.State(), reducer: Counter(clock: ImmediateClock()))
    store.exhaustivity = .off(showSkippedAssertions: true)
    await withKnownIssue {
      await store.send(.increment)
    } matching: { issue in
      issue.severity == .warning && message(of: issue).hasPrefix("A state change was not asserted (skipped).")
    }
  }

  @Test func skippingReceivedActionsAndEffects() async {
    let clock = TestClock()
    let store = TestStore(initialState: Counter.State(), reducer: Counter(clock: clock))
    await store.send(.addTwice)
    await store.skipReceivedActions()
    #expect(store.state.count == 2)
    await store.send(.incrementLater)
    await store.skipInFlightEffects()
    await clock.advance(by: .seconds(2))
  }
}
