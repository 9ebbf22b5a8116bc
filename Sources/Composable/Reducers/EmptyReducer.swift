/// A reducer that does nothing: the child of a presentation that has no logic of its own (an
/// alert, whose buttons' actions its parent handles).
public struct EmptyReducer<State, Action: Sendable>: Reducer {
  /// A reducer that changes nothing and returns `.none`.
  ///
  /// ```swift
  /// let alert = EmptyReducer<AlertState<AlertAction>, AlertAction>()
  /// ```
  public init() {}

  public func reduce(into state: inout State, action: Action) -> Effect<Action> { .none }
}
