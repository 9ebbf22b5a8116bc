extension Effect {
  /// This effect with `node` applied to each of its parts, outermost first: a part `node`
  /// gives a replacement for is replaced (its inside is not visited further), the others are
  /// kept and their insides visited. The walk a stack and a presentation make over a child's
  /// effect (its dismissals, its cancel ids), written once.
  func rewriting(_ node: (Self) -> Self?) -> Self {
    if let replaced = node(self) { return replaced }
    switch operation {
    case .none, .send, .run, .cancel, .dismiss: return self
    case let .merge(effects): return Self(.merge(effects.map { $0.rewriting(node) }))
    case let .concatenate(effects): return Self(.concatenate(effects.map { $0.rewriting(node) }))
    case let .cancellable(id, cancelInFlight, effect):
      return Self(.cancellable(id, cancelInFlight: cancelInFlight, effect.rewriting(node)))
    case let .throttle(id, throttle, effect):
      return Self(.throttle(id, throttle, effect.rewriting(node)))
    case let .named(name, effect): return Self(.named(name, effect.rewriting(node)))
    case let .holding(object, effect): return Self(.holding(object, effect.rewriting(node)))
    case let .failed(failure, then): return Self(.failed(failure, then: then.rewriting(node)))
    }
  }
}
