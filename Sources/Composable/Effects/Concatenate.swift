extension Effect {
  /// Runs the effects one after another: each starts when the one before has finished.
  ///
  /// ```swift
  /// return .concatenate(
  ///   .run { [bytes] _ in try await files.write("draft.txt", bytes) },
  ///   .send(.draftSaved))
  /// ```
  public static func concatenate(_ effects: Self...) -> Self { concatenate(effects) }

  /// `concatenate(_:)` for a sequence of effects, run in its order; `.none` among them is
  /// dropped.
  ///
  /// ```swift
  /// return .concatenate(state.pendingUploads.map { .send(.upload($0)) })
  /// ```
  public static func concatenate(_ effects: some Sequence<Self>) -> Self {
    let kept = effects.filter { !$0.isNone }
    switch kept.count {
    case 0: return .none
    case 1: return kept[0]
    default: return Self(.concatenate(kept))
    }
  }

  /// This effect, then `other`.
  ///
  /// ```swift
  /// return save.concatenate(with: .send(.saved))
  /// ```
  public func concatenate(with other: Self) -> Self { .concatenate(self, other) }
}
