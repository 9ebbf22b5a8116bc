/// What the check of a reload compares an action replayed through the code of now with, beyond
/// what its record holds: a hash of the changes it made (its transaction's `LuaDifference`s)
/// and one of the code of the functions its effect holds (`LuaFeature.codeHash`: the body of
/// an `effect.run`, which its description writes as `"<function>"`). Kept in memory, by the
/// timeline; comparable within one process.
public struct ActionHashes: Equatable, Sendable {
  /// The hash of the changes the action made; nil where not known.
  public var changes: Int?
  /// The hash of the code of the functions its effect holds; nil where it holds none.
  public var effectCode: Int?

  /// Hashes as read from one reduction of an action.
  ///
  /// ```swift
  /// let hashes = ActionHashes(changes: differences.hashValue, effectCode: nil)
  /// ```
  public init(changes: Int? = nil, effectCode: Int? = nil) {
    self.changes = changes
    self.effectCode = effectCode
  }
}
