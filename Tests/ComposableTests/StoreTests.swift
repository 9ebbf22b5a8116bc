import Clocks
import Composable
import Testing

@Suite struct StoreTests {
  enum Action: Equatable, Sendable {
    case start
    case log(String)
    case child(Counter.Action)
  }

  struct State: Equatable, Sendable {
    var log: [String] = []
    var counter = Counter.State()
  }

  static let counterCase = ActionCase<Action, Counter.Action>(
    embed: Action.child, extract: { if case let .child(action) = $0 { action } else { nil } })

  @Test func sendReducesAtOnce() async {
    let store = Store(initialState: Counter.State(), reducer: Counter(clock: ImmediateClock()))
    await store.send(.increment)
    await store.send(.increment)
    #expect(await store.state.count == 2)
  }

  @Test func actionsFedBackAreReducedInOrderRightAfterTheAction() async {
    let store = Store(initialState: State(), reducer: Reduce<State, Action> { state, action in
      switch action {
      case .start:
        state.log.append("start")
        return .merge(.send(.log("a")), .send(.log("b")))
      case let .log(text):
        state.log.append(text)
        return text == "a" ? .send(.log("a2")) : .none
      case .child:
        return .none
      }
    })
    await store.send(.start)
    #expect(await store.state.log == ["start", "a", "b", "a2"])
  }

  @Test func actionsFromAnEffectArriveInTheOrderItSentThem() async {
    let store = Store(initialState: State(), reducer: Reduce<State, Action> { state, action in
      switch action {
      case .start:
        return .run { send in
          for index in 0..<50 { await send(.log("\(index)")) }
        }
      case let .log(text):
        state.log.append(text)
        return .none
      case .child:
        return .none
      }
    })
    await store.send(.start).finish()
    #expect(await store.state.log == (0..<50).map(String.init))
  }

  @Test func aTaskHandleCancelsAndFinishes() async {
    let clock = TestClock()
    let store = Store(initialState: Counter.State(), reducer: Counter(clock: clock))
    let task = await store.send(.incrementLater)
    task.cancel()
    await clock.advance(by: .seconds(5))
    await task.finish()
    #expect(await store.state.count == 0)
    #expect(task.isCancelled)
  }

  @Test func statesCanBeObserved() async {
    let store = Store(initialState: Counter.State(), reducer: Counter(clock: ImmediateClock()))
    let states = await store.states
    await store.send(.increment)
    await store.send(.increment)
    var seen: [Int] = []
    for await state in states {
      seen.append(state.count)
      if seen.count == 2 { break }
    }
    #expect(seen == [1, 2])
  }

  @Test func aStoreCanBeScopedToAChild() async {
    let store = Store(initialState: State(), reducer: Scope(state: \State.counter, action: Self.counterCase) {
      Counter(clock: ImmediateClock())
    })
    let child = store.scope(state: { $0.counter }, action: Self.counterCase)
    await child.send(.increment)
    await child.send(.increment)
    #expect(await child.state.count == 2)
    #expect(await store.state.counter.count == 2)
  }

  @Test func sendsFromTheStoresOwnExecutorNeedNoHop() async {
    let store = Store(initialState: Counter.State(), reducer: Counter(clock: ImmediateClock()))
    let count = await store.withIsolation { store in
      for _ in 0..<1000 { store.send(.increment) }
      return store.state.count
    }
    #expect(count == 1000)
  }

  @Test func manyStoresRunAtOnce() async {
    let counts = await withTaskGroup(of: Int.self) { group in
      for _ in 0..<8 {
        group.addTask {
          let store = Store(initialState: Counter.State(), reducer: Counter(clock: ImmediateClock()))
          for _ in 0..<500 { await store.send(.increment) }
          return await store.state.count
        }
      }
      return await group.reduce(into: []) { $0.append($1) }
    }
    #expect(counts == Array(repeating: 500, count: 8))
  }
}
