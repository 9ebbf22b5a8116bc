extension Effect {
  /// Runs the effects at the same time. `.none` among them costs nothing: merging with it
  /// gives back the other effect unchanged.
  public static func merge(_ effects: Self...) -> Self { merge(effects) }

  public static func merge(_ effects: some Sequence<Self>) -> Self {
    var kept: [Self] = []
    for effect in effects {
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
  public func merge(with other: Self) -> Self { .merge(self, other) }
}
