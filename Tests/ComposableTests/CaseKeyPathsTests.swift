import Composable
import IdentifiedCollections
import Testing

/// Actions as TCA 1.x reads them: case key paths (`\.counter`) in `Scope`, `ifLet`, `forEach`,
/// the navigation reducers and `TestStore.receive`, and reducers written as a `body`. The enums
/// here conform to `CasePathable` by hand, as the `@CasePathable` macro (from swift-case-paths'
/// `CasePaths` product, which an app adds) would write it: this package builds no macros.
/// Tests/Downstream uses the macro itself.
@Suite struct CaseKeyPathsTests {
  struct Counter: Reducer {
    struct State: Equatable, Identifiable, Sendable {
      var id = 0
      var count = 0
    }
    enum Action: Equatable, Sendable { case increment, incrementLater, refuse }

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .increment:
        state.count += 1
        return .none
      case .incrementLater:
        return .send(.increment)
      case .refuse:
        return .failure(Refused(), sending: nil)
      }
    }
  }

  struct Refused: Error {}

  struct AppState: Equatable, Sendable {
    var counter = Counter.State()
    var editor: Counter.State?
    var rows: IdentifiedArrayOf<Counter.State> = []
    var log: [String] = []
  }

  enum AppAction: Equatable, Sendable, CasePathable {
    case counter(Counter.Action)
    case editor(Counter.Action)
    case rows(id: Int, action: Counter.Action)
    case logged

    static func == (lhs: Self, rhs: Self) -> Bool {
      switch (lhs, rhs) {
      case let (.counter(l), .counter(r)), let (.editor(l), .editor(r)): l == r
      case let (.rows(lid, l), .rows(rid, r)): lid == rid && l == r
      case (.logged, .logged): true
      default: false
      }
    }

    // What `@CasePathable` generates, written out.
    struct AllCasePaths {
      var counter: AnyCasePath<AppAction, Counter.Action> {
        AnyCasePath(embed: AppAction.counter) {
          if case let .counter(action) = $0 { action } else { nil }
        }
      }
      var editor: AnyCasePath<AppAction, Counter.Action> {
        AnyCasePath(embed: AppAction.editor) {
          if case let .editor(action) = $0 { action } else { nil }
        }
      }
      var rows: AnyCasePath<AppAction, (id: Int, action: Counter.Action)> {
        AnyCasePath(embed: { AppAction.rows(id: $0.id, action: $0.action) }) {
          if case let .rows(id, action) = $0 { (id, action) } else { nil }
        }
      }
      var logged: AnyCasePath<AppAction, Void> {
        AnyCasePath(embed: { AppAction.logged }) {
          if case .logged = $0 { () } else { nil }
        }
      }
    }
    static var allCasePaths: AllCasePaths { AllCasePaths() }
  }

  /// A parent written as a `body`: its children by case key path, an `if` and a `for`.
  struct App: Reducer {
    var logs = true
    var extra = 0

    var body: some Reducer<AppState, AppAction> {
      Scope(state: \.counter, action: \.counter) { Counter() }
      if logs {
        Reduce { state, action in
          if case .counter = action { state.log.append("counter") }
          return .none
        }
      } else {
        Reduce { state, _ in
          state.log.append("quiet")
          return .none
        }
      }
      for index in 0..<extra {
        Reduce { state, _ in
          state.log.append("extra \(index)")
          return .none
        }
      }
      Reduce { state, action in
        if case .logged = action { state.log.append("logged") }
        return .none
      }
      .ifLet(\.editor, action: \.editor) { Counter() }
      .forEach(\.rows, action: \.rows) { Counter() }
    }
  }

  @Test func aBodyRunsItsReducersInOrder() async {
    let store = TestStore(initialState: AppState()) { _ in App(extra: 2) }
    await store.send(.counter(.increment)) {
      $0.counter.count = 1
      $0.log = ["counter", "extra 0", "extra 1"]
    }
    let quiet = TestStore(initialState: AppState()) { _ in App(logs: false) }
    await quiet.send(.logged) { $0.log = ["quiet", "logged"] }
  }

  /// A child that refuses stops the body there, as `CombineReducers` does: the parent's own
  /// logic after it does not run for that action.
  @Test func aRefusalStopsTheBody() {
    var state = AppState()
    let effect = App(extra: 1).reduce(into: &state, action: .counter(.refuse))
    #expect(effect.failure != nil)
    #expect(state.log == [])
  }

  @Test func receiveByCaseAndByCaseAndValue() async {
    let store = TestStore(initialState: AppState()) { _ in App() }
    await store.send(.counter(.incrementLater)) { $0.log = ["counter"] }
    await store.receive(\.counter) {
      $0.counter.count = 1
      $0.log = ["counter", "counter"]
    }
    await store.send(.counter(.incrementLater)) { $0.log += ["counter"] }
    await store.receive(\.counter, .increment) {
      $0.counter.count = 2
      $0.log += ["counter"]
    }
  }

  /// A receive by a case that does not come fails, naming what came.
  @Test func receiveByTheWrongCaseFails() async {
    let store = TestStore(initialState: AppState()) { _ in App() }
    await store.send(.counter(.incrementLater)) { $0.log = ["counter"] }
    await withKnownIssue {
      await store.receive(\.editor, timeout: .milliseconds(50))
    } matching: { issue in
      "\(issue)".contains("Received unexpected action: CaseKeyPathsTests.AppAction.counter(.increment)")
        || "\(issue)".contains("State was not expected to change")
    }
    await store.skipReceivedActions()
  }

  @Test func ifLetAndForEachByCase() async {
    var initial = AppState()
    initial.editor = Counter.State()
    initial.rows = [Counter.State(id: 7)]
    let store = TestStore(initialState: initial) { _ in App(logs: false) }
    await store.send(.editor(.increment)) {
      $0.editor?.count = 1
      $0.log = ["quiet"]
    }
    await store.send(.rows(id: 7, action: .increment)) {
      $0.rows[id: 7]?.count = 1
      $0.log += ["quiet"]
    }
  }

  @Test func anActionCaseFromACaseKeyPath() {
    let counter = ActionCase(\AppAction.Cases.counter)
    #expect(counter.embed(.increment) == .counter(.increment))
    #expect(counter.extract(.counter(.refuse)) == .refuse)
    #expect(counter.extract(.editor(.refuse)) == nil)
    let rows = ActionCase(\AppAction.Cases.rows)
    #expect(rows.extract(.rows(id: 3, action: .increment))?.id == 3)
  }

  /// An empty body does nothing.
  @Test func anEmptyBodyIsEmpty() {
    struct Nothing: Reducer {
      var body: some Reducer<Int, AppAction> {}
    }
    var state = 1
    #expect(Nothing().reduce(into: &state, action: .logged).isNone)
    #expect(state == 1)
  }
}
