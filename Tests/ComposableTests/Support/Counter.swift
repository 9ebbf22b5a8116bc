import Composable

/// A counter for the tests: the smallest feature with state, effects and a dependency.
struct Counter: Reducer {
  struct State: Equatable, Sendable {
    var count = 0
    var isTimerOn = false
  }

  enum Action: Equatable, Sendable {
    case increment
    case decrement
    case incrementLater
    case incremented
    case addTwice
  }

  var clock: any Clock<Duration>

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .increment, .incremented:
      state.count += 1
      return .none
    case .decrement:
      state.count -= 1
      return .none
    case .incrementLater:
      return .after(.seconds(1), clock: clock, send: .incremented)
    case .addTwice:
      return .merge(.send(.increment), .send(.increment))
    }
  }
}

/// The message of a known issue: the comments IssueReporting recorded, joined.
func message(of issue: Issue) -> String {
  issue.comments.map(\.rawValue).joined(separator: "\n")
}

import Testing

/// The prefix custom-dump puts on diff lines that did not change (a figure space).
let same = "\u{2007}"
