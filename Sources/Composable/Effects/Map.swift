extension Effect {
  /// The same work, with its actions transformed: how a parent runs a child's effects.
  public func map<Parent: Sendable>(
    _ transform: @escaping @Sendable (Action) -> Parent
  ) -> Effect<Parent> {
    switch operation {
    case .none: return .none
    case let .send(action): return .send(transform(action))
    case let .run(priority, work):
      return Effect<Parent>(.run(priority) { send in
        await work(Send { action in await send(transform(action)) })
      })
    case let .merge(effects): return Effect<Parent>(.merge(effects.map { $0.map(transform) }))
    case let .concatenate(effects):
      return Effect<Parent>(.concatenate(effects.map { $0.map(transform) }))
    case let .cancellable(id, cancelInFlight, effect):
      return Effect<Parent>(.cancellable(id, cancelInFlight: cancelInFlight, effect.map(transform)))
    case let .cancel(id): return Effect<Parent>(.cancel(id))
    case let .throttle(id, throttle, effect):
      return Effect<Parent>(.throttle(id, throttle, effect.map(transform)))
    }
  }
}
