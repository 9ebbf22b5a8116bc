extension Effect {
  /// The same work with every cancellation id in it (`cancellable`, `cancel`, `throttle` and
  /// what is built on them) made the child's own: `id` within `scope`. How a stack, a
  /// presentation and `forEach` keep each child's ids apart, as TCA does: two screens that
  /// both run a timer under `"timer"` each cancel their own.
  func scopingIDs(to scope: EffectID) -> Self {
    switch operation {
    case .none, .send, .run, .dismiss: return self
    case let .cancel(id): return Self(.cancel(id.scoped(to: scope)))
    case let .cancellable(id, cancelInFlight, effect):
      return Self(
        .cancellable(
          id.scoped(to: scope), cancelInFlight: cancelInFlight,
          effect.scopingIDs(to: scope)))
    case let .throttle(id, throttle, effect):
      return Self(.throttle(id.scoped(to: scope), throttle, effect.scopingIDs(to: scope)))
    case let .merge(effects): return Self(.merge(effects.map { $0.scopingIDs(to: scope) }))
    case let .concatenate(effects):
      return Self(.concatenate(effects.map { $0.scopingIDs(to: scope) }))
    case let .named(name, effect): return Self(.named(name, effect.scopingIDs(to: scope)))
    case let .holding(object, effect):
      return Self(.holding(object, effect.scopingIDs(to: scope)))
    case let .failed(failure, then):
      return Self(.failed(failure, then: then.scopingIDs(to: scope)))
    }
  }
}

extension EffectID {
  /// This id within `scope`: a child's id, apart from the same id of another child.
  func scoped(to scope: EffectID) -> EffectID { EffectID(ScopedEffectID(scope: scope, id: self)) }
}

/// An effect id within a child's scope (see `Effect.scopingIDs(to:)`).
struct ScopedEffectID: Hashable, Sendable, CustomStringConvertible {
  let scope: EffectID
  let id: EffectID

  var description: String { "\(id) (of \(scope))" }
}
