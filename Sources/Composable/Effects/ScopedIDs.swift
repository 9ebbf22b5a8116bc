extension Effect {
  /// The same work with every cancellation id in it (`cancellable`, `cancel`, `throttle` and
  /// what is built on them) made the child's own: `id` within `scope`. How a stack, a
  /// presentation and `forEach` keep each child's ids apart, as TCA does: two screens that
  /// both run a timer under `"timer"` each cancel their own.
  func scopingIDs(to scope: EffectID) -> Self {
    rewriting { effect in
      switch effect.operation {
      case let .cancel(id): return Self(.cancel(id.scoped(to: scope)))
      case let .cancellable(id, cancelInFlight, inner):
        return Self(
          .cancellable(
            id.scoped(to: scope), cancelInFlight: cancelInFlight, inner.scopingIDs(to: scope)))
      case let .throttle(id, throttle, inner):
        return Self(.throttle(id.scoped(to: scope), throttle, inner.scopingIDs(to: scope)))
      default: return nil
      }
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
