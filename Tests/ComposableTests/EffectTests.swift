import Clocks
import Composable
import Testing

@Suite struct EffectTests {
  struct Failure: Error {}

  enum Action: Equatable, Sendable {
    case run
    case runAndFail
    case runTwoInOrder
    case response(String)
  }

  struct State: Equatable, Sendable { var log: [String] = [] }

  func reducer(clock: any Clock<Duration>) -> Reduce<State, Action> {
    Reduce { state, action in
      switch action {
      case .run:
        return .run { send in await send(.response("ran")) }
      case .runAndFail:
        return .run { _ in throw Failure() } catch: { _, send in await send(.response("caught")) }
      case .runTwoInOrder:
        return .concatenate(
          .run { send in
            try await clock.sleep(for: .seconds(2))
            await send(.response("slow first"))
          },
          .run { send in await send(.response("then fast")) })
      case let .response(text):
        state.log.append(text)
        return .none
      }
    }
  }

  @Test func runSendsItsActionsBack() async {
    let store = TestStore(initialState: State(), reducer: reducer(clock: ImmediateClock()))
    await store.send(.run)
    await store.receive(.response("ran")) { $0.log = ["ran"] }
  }

  @Test func errorsGoToTheCatchHandler() async {
    let store = TestStore(initialState: State(), reducer: reducer(clock: ImmediateClock()))
    await store.send(.runAndFail)
    await store.receive(.response("caught")) { $0.log = ["caught"] }
  }

  @Test func anUnhandledErrorIsReportedNotACrash() async {
    let store = Store(initialState: State(), reducer: Reduce<State, Action> { _, _ in
      .run { _ in throw Failure() }
    })
    await withKnownIssue {
      await store.send(.run).finish()
    } matching: { issue in
      message(of: issue).contains("threw an unhandled error")
    }
  }

  @Test func concatenatedEffectsRunOneAfterAnother() async {
    let clock = TestClock()
    let store = TestStore(initialState: State(), reducer: reducer(clock: clock))
    await store.send(.runTwoInOrder)
    await clock.advance(by: .seconds(2))
    await store.receive(.response("slow first")) { $0.log = ["slow first"] }
    await store.receive(.response("then fast")) { $0.log = ["slow first", "then fast"] }
  }

  @Test func noneMergedWithAnythingIsThatThing() {
    let effect = Effect<Action>.merge(.none, .send(.run), .none)
    let alone = Effect<Action>.merge(.none, .none)
    #expect("\(effect)".contains("send"))
    #expect("\(alone)".contains("none"))
  }

  @Test func timersTickOnTheClock() async {
    enum TimerAction: Equatable, Sendable { case start, stop, tick }
    let clock = TestClock()
    let store = TestStore(initialState: 0, reducer: Reduce<Int, TimerAction> { count, action in
      switch action {
      case .start: return .timer(every: .seconds(1), clock: clock, send: .tick).cancellable(id: "timer")
      case .stop: return .cancel(id: "timer")
      case .tick:
        count += 1
        return .none
      }
    })
    await store.send(.start)
    for count in 1...3 {
      await clock.advance(by: .seconds(1))
      await store.receive(.tick) { $0 = count }
    }
    await store.send(.stop)
    await clock.advance(by: .seconds(3))
    await store.finish()
  }
}

