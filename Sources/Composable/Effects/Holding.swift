extension Effect {
  /// The same work, keeping `object` alive for as long as any part of it may still run: it is
  /// released when the effect ends, is cancelled, or is dropped without running. What the
  /// object does when released (its `deinit`) then marks the effect's end, whichever way it
  /// came.
  ///
  /// The object goes down to every part that does work: async work captures it; an action to
  /// send carries it, so an action that waits its turn (in a concatenation, behind a throttle)
  /// keeps it until it is sent.
  ///
  /// ```swift
  /// return .run { send in await send(.loaded(try await api.fetchAll())) }
  ///   .holding(activity)  // `activity`'s deinit marks the end of the load
  /// ```
  public func holding(_ object: some AnyObject & Sendable) -> Self {
    switch operation {
    case .none, .cancel: return self
    case .send, .holding, .dismiss: return Self(.holding(object, self))
    case let .run(priority, work):
      return Self(
        .run(priority) { send in
          await work(send)
          withExtendedLifetime(object) {}
        })
    case let .merge(effects): return Self(.merge(effects.map { $0.holding(object) }))
    case let .concatenate(effects): return Self(.concatenate(effects.map { $0.holding(object) }))
    case let .cancellable(id, cancelInFlight, effect):
      return Self(.cancellable(id, cancelInFlight: cancelInFlight, effect.holding(object)))
    case let .throttle(id, throttle, effect):
      return Self(.throttle(id, throttle, effect.holding(object)))
    case let .named(name, effect): return Self(.named(name, effect.holding(object)))
    case let .failed(failure, then): return Self(.failed(failure, then: then.holding(object)))
    }
  }
}
