extension Effect {
  /// The same work, keeping `object` alive for as long as any part of it may still run: it is
  /// released when the effect ends, is cancelled, or is dropped without running. What the
  /// object does when released (its `deinit`) then marks the effect's end, whichever way it
  /// came.
  public func holding(_ object: some AnyObject & Sendable) -> Self {
    compactMap { action in withExtendedLifetime(object) { action } }
  }
}
