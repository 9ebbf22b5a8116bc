extension Effect {
  /// Runs the effects at the same time. `.none` among them costs nothing: merging with it
  /// gives back the other effect unchanged.
  ///
  /// ```swift
  /// case .closeTapped:
  ///   return .merge(.cancel(id: "search"), .send(.delegate(.closed)))
  /// ```
  public static func merge(_ effects: Self...) -> Self { merge(effects) }

  /// `merge(_:)` for a sequence of effects, such as one per element of a collection.
  ///
  /// A refusal among them (`failure(_:then:)`) is the result, alone: the action was refused, so
  /// nothing else it asked for runs, and what composes it sees the refusal (an `ifLet` or a
  /// `forEach` merges its parent's effect with its child's; a refusal must not hide there).
  ///
  /// ```swift
  /// return .merge(state.rows.ids.map { .send(.row(id: $0, action: .refresh)) })
  /// ```
  public static func merge(_ effects: some Sequence<Self>) -> Self {
    var kept: [Self] = []
    for effect in effects {
      if effect.failure != nil { return effect }
      switch effect.operation {
      case .none: continue
      case let .merge(inner): kept.append(contentsOf: inner)
      default: kept.append(effect)
      }
    }
    switch kept.count {
    case 0: return .none
    case 1: return kept[0]
    default: return Self(.merge(kept))
    }
  }

  /// This effect and `other`, at the same time.
  ///
  /// ```swift
  /// return save.merge(with: .send(.savingStarted))
  /// ```
  public func merge(with other: Self) -> Self { .merge(self, other) }
}
