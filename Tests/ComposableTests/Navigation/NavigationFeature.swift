import Composable

/// A screen that counts, ticks once a second once started, and closes itself.
struct Screen: Reducer {
  struct State: Equatable, Sendable, Identifiable {
    var id = 0
    var count = 0
  }

  enum Action: Equatable, Sendable {
    case increment, start, tick, close, closeLater
    /// A timer under the id "timer", and its cancel: each screen's own.
    case startTimer, stopTimer
    /// Closes itself; the parent, seeing it, presents or pops in the same action.
    case closeAndReplace, closeAndPop
  }

  let clock: any Clock<Duration>

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .increment, .tick:
      state.count += 1
      return .none
    case .start:
      return .run { [clock] send in
        for _ in 0..<100 {
          try await clock.sleep(for: .seconds(1))
          await send(.tick)
        }
      }
    case .close, .closeAndReplace, .closeAndPop:
      return .dismiss
    case .startTimer:
      return .run { [clock] send in
        for _ in 0..<100 {
          try await clock.sleep(for: .seconds(1))
          await send(.tick)
        }
      }
      .cancellable(id: "timer")
    case .stopTimer:
      return .cancel(id: "timer")
    case .closeLater:
      return .run { [clock] send in
        try await clock.sleep(for: .seconds(1))
        await send.dismiss()
      }
    }
  }
}

/// The kinds of screen the stack holds: two, both run by `Screen`, so that an action for one
/// kind sent to the other shows.
enum Path {
  enum State: Equatable, Sendable {
    case counter(Screen.State)
    case timer(Screen.State)
  }

  enum Action: Equatable, Sendable {
    case counter(Screen.Action)
    case timer(Screen.Action)
  }

  static func reducer(clock: any Clock<Duration>) -> some Reducer<State, Action> {
    CombineReducers(
      CaseScope(
        state: StateCase(
          embed: State.counter, extract: { if case let .counter(s) = $0 { s } else { nil } }),
        action: ActionCase(
          embed: Action.counter, extract: { if case let .counter(a) = $0 { a } else { nil } })
      ) { Screen(clock: clock) },
      CaseScope(
        state: StateCase(
          embed: State.timer, extract: { if case let .timer(s) = $0 { s } else { nil } }),
        action: ActionCase(
          embed: Action.timer, extract: { if case let .timer(a) = $0 { a } else { nil } })
      ) { Screen(clock: clock) })
  }
}

/// What a parent presents: a sheet (a `Screen`) or an alert.
enum Destination {
  enum State: Equatable, Sendable {
    case sheet(Screen.State)
    case alert(AlertState<Alert>)
  }

  enum Action: Equatable, Sendable {
    case sheet(Screen.Action)
    case alert(Alert)
  }

  enum Alert: Equatable, Sendable {
    case confirm, confirmAndPresentSheet, confirmAndAlert
  }

  static func reducer(clock: any Clock<Duration>) -> some Reducer<State, Action> {
    CaseScope(
      state: StateCase(
        embed: State.sheet, extract: { if case let .sheet(s) = $0 { s } else { nil } }),
      action: ActionCase(
        embed: Action.sheet, extract: { if case let .sheet(a) = $0 { a } else { nil } })
    ) { Screen(clock: clock) }
  }
}

/// A parent with a stack and a presented destination; it logs what it sees of them.
struct Navigator: Reducer {
  struct State: Equatable, Sendable {
    var path = StackState<Path.State>()
    @Presents var destination: Destination.State?
    var log: [String] = []
  }

  enum Action: Equatable, Sendable {
    case path(StackAction<Path.State, Path.Action>)
    case destination(PresentationAction<Destination.Action>)
    case presentSheet(id: Int)
    case presentAlert
    case popAllAndPush
  }

  static let pathCase = ActionCase<Action, StackAction<Path.State, Path.Action>>(
    embed: Action.path, extract: { if case let .path(a) = $0 { a } else { nil } })
  static let destinationCase = ActionCase<Action, PresentationAction<Destination.Action>>(
    embed: Action.destination, extract: { if case let .destination(a) = $0 { a } else { nil } })

  static let deleteAlert = AlertState<Destination.Alert>(
    title: "Delete?",
    buttons: [
      ButtonState(label: "Delete", action: .confirm, role: .destructive),
      ButtonState(label: "Delete and start again", action: .confirmAndPresentSheet),
      ButtonState(label: "Cancel", role: .cancel),
    ])

  let clock: any Clock<Duration>

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    Reduce<State, Action> { state, action in
      switch action {
      case let .path(.popFrom(id)):
        // The parent sees a pop first, with the screen still on the stack.
        state.log.append("pop \(id) of \(state.path.count)")
      case .path(.push):
        state.log.append("push")
      case let .path(.element(id, .counter(.closeAndPop))):
        state.path.pop(from: id)
      case .path(.element):
        break
      case .destination(.presented(.alert(.confirm))):
        state.log.append("confirmed")
      case .destination(.presented(.alert(.confirmAndPresentSheet))):
        state.log.append("confirmed")
        state.destination = .sheet(Screen.State(id: 9))
      case .destination(.presented(.alert(.confirmAndAlert))):
        state.destination = .alert(AlertState(title: "Could not delete"))
      case .destination(.presented(.sheet(.closeAndReplace))):
        state.destination = .sheet(Screen.State(id: 9))
      case .destination(.dismiss):
        state.log.append("dismiss")
      case .destination:
        break
      case let .presentSheet(id):
        state.destination = .sheet(Screen.State(id: id))
      case .presentAlert:
        state.destination = .alert(Self.deleteAlert)
      case .popAllAndPush:
        state.path.removeAll()
        state.path.append(.counter(Screen.State()))
      }
      return .none
    }
    .forEach(\.path, action: Self.pathCase) { Path.reducer(clock: clock) }
    .ifLet(\.$destination, action: Self.destinationCase) { Destination.reducer(clock: clock) }
    .reduce(into: &state, action: action)
  }
}
