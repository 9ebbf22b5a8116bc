extension Effect {
  /// Marks the effect cancellable by `id`. With `cancelInFlight`, starting it first cancels any
  /// effect already running under the same id.
  public func cancellable(id: some Hashable & Sendable, cancelInFlight: Bool = false) -> Self {
    if isNone { return self }
    return Self(.cancellable(EffectID(id), cancelInFlight: cancelInFlight, self))
  }

  /// Cancels every running effect marked with `id`. A cancelled effect delivers nothing more.
  public static func cancel(id: some Hashable & Sendable) -> Self { Self(.cancel(EffectID(id))) }
}
