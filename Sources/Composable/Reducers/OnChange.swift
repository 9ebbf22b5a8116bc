extension Reducer {
  /// Runs `perform` after this reducer whenever the action changed `value(state)`: with the old
  /// value, the new one, and the state to adjust. Its effect merges with this reducer's.
  ///
  /// ```swift
  /// Counter()
  ///   .onChange(of: { $0.count >= 10 }) { _, isHigh, state in
  ///     state.showsWarning = isHigh
  ///     return .none
  ///   }
  /// ```
  public func onChange<Value: Equatable>(
    of value: @escaping (State) -> Value,
    _ perform: @escaping (_ old: Value, _ new: Value, inout State) -> Effect<Action>
  ) -> Reduce<State, Action> {
    Reduce { state, action in
      let old = value(state)
      let effect = self.reduce(into: &state, action: action)
      if effect.failure != nil { return effect }  // refused: nothing changed to react to
      let new = value(state)
      guard old != new else { return effect }
      return .merge(effect, perform(old, new, &state))
    }
  }
}
