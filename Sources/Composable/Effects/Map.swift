extension Effect {
  /// The same work, with its actions transformed: how a parent runs a child's effects.
  ///
  /// ```swift
  /// case let .counter(action):
  ///   return Counter().reduce(into: &state.counter, action: action).map(AppAction.counter)
  /// ```
  public func map<Parent: Sendable>(
    _ transform: @escaping @Sendable (Action) -> Parent
  ) -> Effect<Parent> {
    compactMap { transform($0) }
  }
}
