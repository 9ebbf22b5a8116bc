extension Effect {
  /// `map`, telling apart the actions the store reduces at once, right after the action that
  /// returned this effect and before anything else (a `send`, alone or in a merge), which
  /// `atOnce` transforms, from those sent later, by work or after a wait (in a `run`, a
  /// concatenation or a throttle), which `later` transforms. A host that travels in time needs
  /// the difference: no run stops between an action and what it sends at once.
  ///
  /// ```swift
  /// let effect = Effect<String>.merge(.send("echo"), .run { send in await send("late") })
  /// let told = effect.map(atOnce: { "now: \($0)" }, later: { "later: \($0)" })
  /// ```
  public func map<Other: Sendable>(
    atOnce: @escaping @Sendable (Action) -> Other, later: @escaping @Sendable (Action) -> Other
  ) -> Effect<Other> {
    switch operation {
    case .none: return .none
    case let .send(action): return .send(atOnce(action))
    case .run, .concatenate, .throttle: return map(later)
    case let .merge(effects):
      return Effect<Other>(.merge(effects.map { $0.map(atOnce: atOnce, later: later) }))
    case let .cancellable(id, cancelInFlight, effect):
      return Effect<Other>(
        .cancellable(id, cancelInFlight: cancelInFlight, effect.map(atOnce: atOnce, later: later)))
    case let .cancel(id): return Effect<Other>(.cancel(id))
    case let .named(name, effect):
      return Effect<Other>(.named(name, effect.map(atOnce: atOnce, later: later)))
    case let .holding(object, effect):
      return Effect<Other>(.holding(object, effect.map(atOnce: atOnce, later: later)))
    case let .failed(failure, then):
      return Effect<Other>(.failed(failure, then: then.map(atOnce: atOnce, later: later)))
    case .dismiss: return Effect<Other>(.dismiss)
    }
  }
}
