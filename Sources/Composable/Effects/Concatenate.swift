extension Effect {
  /// Runs the effects one after another: each starts when the one before has finished.
  public static func concatenate(_ effects: Self...) -> Self { concatenate(effects) }

  public static func concatenate(_ effects: some Sequence<Self>) -> Self {
    let kept = effects.filter { !$0.isNone }
    switch kept.count {
    case 0: return .none
    case 1: return kept[0]
    default: return Self(.concatenate(kept))
    }
  }

  /// This effect, then `other`.
  public func concatenate(with other: Self) -> Self { .concatenate(self, other) }
}
