extension Effect {
  /// The same work, with its actions transformed: how a parent runs a child's effects.
  public func map<Parent: Sendable>(
    _ transform: @escaping @Sendable (Action) -> Parent
  ) -> Effect<Parent> {
    compactMap { transform($0) }
  }
}
