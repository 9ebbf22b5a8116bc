/// The logic of a feature: how an action changes the state, and what work follows.
///
/// `reduce` mutates `state` in place and returns the effect to run; the `Store` runs it.
public protocol Reducer<State, Action>: SendableMetatype {
  associatedtype State
  associatedtype Action: Sendable

  func reduce(into state: inout State, action: Action) -> Effect<Action>
}

/// A reducer from a closure.
public struct Reduce<State, Action: Sendable>: Reducer {
  let body: (inout State, Action) -> Effect<Action>

  public init(_ body: @escaping (inout State, Action) -> Effect<Action>) {
    self.body = body
  }

  public init<R: Reducer>(_ reducer: R) where R.State == State, R.Action == Action {
    self.body = reducer.reduce
  }

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    body(&state, action)
  }
}
