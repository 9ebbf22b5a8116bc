import Clocks
import Composable
import IdentifiedCollections
import Testing

@Suite struct CompositionTests {
  // MARK: combine and scope

  @Test func combinedReducersRunInOrder() async {
    let first = Reduce<[String], String> { log, action in
      log.append("first \(action)")
      return .none
    }
    let second = Reduce<[String], String> { log, action in
      log.append("second \(action)")
      return .none
    }
    let store = TestStore(initialState: [], reducer: first.combined(with: second))
    await store.send("a") { $0 = ["first a", "second a"] }
  }

  @Test func scopeRunsTheChildOnItsStateAndMapsItsEffects() async {
    let clock = TestClock()
    let store = TestStore(
      initialState: StoreTests.State(),
      reducer: Scope(state: \StoreTests.State.counter, action: StoreTests.counterCase) {
        Counter(clock: clock)
      })
    await store.send(.child(.increment)) { $0.counter.count = 1 }
    await store.send(.log("not for the child"))
    await store.send(.child(.incrementLater))
    await clock.advance(by: .seconds(1))
    await store.receive(.child(.incremented)) { $0.counter.count = 2 }
  }

  // MARK: ifLet

  struct Parent: Equatable, Sendable {
    var child: Counter.State?
  }

  enum ParentAction: Equatable, Sendable {
    case open, close
    case child(Counter.Action)
  }

  static let childCase = ActionCase<ParentAction, Counter.Action>(
    embed: ParentAction.child, extract: { if case let .child(action) = $0 { action } else { nil } })

  func parent(clock: any Clock<Duration>) -> IfLetReducer<Reduce<Parent, ParentAction>, Counter> {
    Reduce<Parent, ParentAction> { state, action in
      switch action {
      case .open: state.child = Counter.State()
      case .close: state.child = nil
      case .child: break
      }
      return .none
    }
    .ifLet(\.child, action: Self.childCase) { Counter(clock: clock) }
  }

  @Test func ifLetRunsTheChildWhileItExists() async {
    let store = TestStore(initialState: Parent(), reducer: parent(clock: ImmediateClock()))
    await store.send(.open) { $0.child = Counter.State() }
    await store.send(.child(.increment)) { $0.child?.count = 1 }
  }

  @Test func ifLetCancelsTheChildsEffectsWhenItGoes() async {
    let clock = TestClock()
    let store = TestStore(initialState: Parent(), reducer: parent(clock: clock))
    await store.send(.open) { $0.child = Counter.State() }
    await store.send(.child(.incrementLater))
    await store.send(.close) { $0.child = nil }
    await clock.advance(by: .seconds(5))
    await store.finish()  // the delayed increment was cancelled: nothing arrives, nothing runs
  }

  @Test func aChildActionWithoutChildStateIsReported() async {
    let store = TestStore(initialState: Parent(), reducer: parent(clock: ImmediateClock()))
    await withKnownIssue {
      await store.send(.child(.increment))
    } matching: { issue in
      message(of: issue).contains("received a child action when the child state was nil")
    }
  }

  // MARK: forEach

  struct Row: Equatable, Sendable, Identifiable {
    let id: Int
    var counter = Counter.State()
  }

  struct List: Equatable, Sendable {
    var rows: IdentifiedArrayOf<Row> = []
  }

  enum ListAction: Equatable, Sendable {
    case add(Int)
    case remove(Int)
    case row(id: Int, action: Counter.Action)
  }

  static let rowCase = ActionCase<ListAction, (id: Int, action: Counter.Action)>(
    embed: { ListAction.row(id: $0.id, action: $0.action) },
    extract: { if case let .row(id, action) = $0 { (id, action) } else { nil } })

  func list(clock: any Clock<Duration>) -> some Reducer<List, ListAction> {
    Reduce<List, ListAction> { state, action in
      switch action {
      case let .add(id): state.rows.append(Row(id: id))
      case let .remove(id): state.rows.remove(id: id)
      case .row: break
      }
      return .none
    }
    .forEach(\.rows, action: Self.rowCase) {
      Scope(state: \Row.counter, action: ActionCase(embed: { $0 }, extract: { $0 })) {
        Counter(clock: clock)
      }
    }
  }

  @Test func forEachRunsTheElementByID() async {
    let store = TestStore(initialState: List(), reducer: list(clock: ImmediateClock()))
    await store.send(.add(1)) { $0.rows = [Row(id: 1)] }
    await store.send(.add(2)) { $0.rows = [Row(id: 1), Row(id: 2)] }
    await store.send(.row(id: 2, action: .increment)) { $0.rows[id: 2]?.counter.count = 1 }
  }

  @Test func forEachCancelsTheEffectsOfRemovedElements() async {
    let clock = TestClock()
    let store = TestStore(initialState: List(), reducer: list(clock: clock))
    await store.send(.add(1)) { $0.rows = [Row(id: 1)] }
    await store.send(.add(2)) { $0.rows = [Row(id: 1), Row(id: 2)] }
    await store.send(.row(id: 1, action: .incrementLater))
    await store.send(.row(id: 2, action: .incrementLater))
    await store.send(.remove(1)) { $0.rows = [Row(id: 2)] }
    await clock.advance(by: .seconds(1))
    await store.receive(.row(id: 2, action: .incremented)) { $0.rows[id: 2]?.counter.count = 1 }
    await store.finish()
  }

  @Test func anActionForAMissingElementIsReported() async {
    let store = TestStore(initialState: List(), reducer: list(clock: ImmediateClock()))
    await withKnownIssue {
      await store.send(.row(id: 9, action: .increment))
    } matching: { issue in
      message(of: issue).contains("received an action for a missing element")
        && message(of: issue).contains("Element id: 9")
    }
  }

  // MARK: onChange

  @Test func onChangeRunsWhenTheValueChanges() async {
    let reducer = Reduce<Counter.State, Counter.Action> { state, action in
      if action == .increment { state.count += 1 }
      return .none
    }
    .onChange(of: { $0.count >= 2 }) { _, isHigh, state in
      state.isTimerOn = isHigh
      return .none
    }
    let store = TestStore(initialState: Counter.State(), reducer: reducer)
    await store.send(.increment) { $0.count = 1 }
    await store.send(.increment) {
      $0.count = 2
      $0.isTimerOn = true
    }
    await store.send(.increment) { $0.count = 3 }
    await store.send(.decrement)
  }
}

