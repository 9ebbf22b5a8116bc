/// The identifier of a cancellable effect: any hashable, sendable value.
public struct EffectID: Hashable, @unchecked Sendable, CustomStringConvertible {
  // The wrapped value is Sendable (the initializer requires it); AnyHashable just cannot say so.
  private let base: AnyHashable

  /// The id for `id`. An `EffectID` given again is kept as it is, not wrapped a second time.
  ///
  /// ```swift
  /// let searching = await store.runningEffects.contains { $0.ids.contains(EffectID("search")) }
  /// ```
  public init<ID: Hashable & Sendable>(_ id: ID) {
    self.base = (id as? EffectID)?.base ?? AnyHashable(id)
  }

  public var description: String { "\(base)" }
}
