/// The logic of a feature: how an action changes the state, and what work follows.
///
/// `reduce` mutates `state` in place and returns the effect to run; the `Store` runs it.
public protocol Reducer<State, Action>: SendableMetatype {
  /// The state the reducer changes.
  associatedtype State
  /// The actions the reducer handles.
  associatedtype Action: Sendable

  /// Changes `state` for `action`, and returns the work that follows (`.none` for none).
  func reduce(into state: inout State, action: Action) -> Effect<Action>
}

/// A reducer from a closure.
public struct Reduce<State, Action: Sendable>: Reducer {
  let body: (inout State, Action) -> Effect<Action>

  /// A reducer that runs `body`.
  ///
  /// ```swift
  /// let counter = Reduce<Int, CounterAction> { count, action in
  ///   switch action {
  ///   case .increment: count += 1
  ///   case .decrement: count -= 1
  ///   }
  ///   return .none
  /// }
  /// ```
  public init(_ body: @escaping (inout State, Action) -> Effect<Action>) {
    self.body = body
  }

  /// `reducer` behind the one type `Reduce<State, Action>`: for a choice of reducers whose
  /// types differ.
  ///
  /// ```swift
  /// let reducer = isDebugging ? Reduce(Feature().printChanges()) : Reduce(Feature())
  /// ```
  public init<R: Reducer>(_ reducer: R) where R.State == State, R.Action == Action {
    self.body = reducer.reduce
  }

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    body(&state, action)
  }
}
