extension Effect {
  /// The same work, with its actions transformed; an action `transform` turns into nil is
  /// dropped. For actions that cross a boundary where they may not fit (Lua to Swift).
  ///
  /// ```swift
  /// let parentEffect = luaEffect.compactMap { AppAction(luaAction: $0) }
  /// ```
  public func compactMap<Other: Sendable>(
    _ transform: @escaping @Sendable (Action) -> Other?
  ) -> Effect<Other> {
    switch operation {
    case .none: return .none
    case let .send(action):
      guard let other = transform(action) else { return .none }
      return .send(other)
    case let .run(priority, work):
      return Effect<Other>(
        .run(priority) { send in
          await work(
            Send(
              { action in if let other = transform(action) { await send(other) } },
              dismissal: send.dismissal))
        })
    case let .merge(effects): return Effect<Other>(.merge(effects.map { $0.compactMap(transform) }))
    case let .concatenate(effects):
      return Effect<Other>(.concatenate(effects.map { $0.compactMap(transform) }))
    case let .cancellable(id, cancelInFlight, effect):
      return Effect<Other>(
        .cancellable(id, cancelInFlight: cancelInFlight, effect.compactMap(transform)))
    case let .cancel(id): return Effect<Other>(.cancel(id))
    case let .throttle(id, throttle, effect):
      return Effect<Other>(.throttle(id, throttle, effect.compactMap(transform)))
    case let .named(name, effect):
      return Effect<Other>(.named(name, effect.compactMap(transform)))
    case let .holding(object, effect):
      return Effect<Other>(.holding(object, effect.compactMap(transform)))
    case let .failed(failure, then):
      return Effect<Other>(.failed(failure, then: then.compactMap(transform)))
    case .dismiss: return Effect<Other>(.dismiss)
    }
  }
}
