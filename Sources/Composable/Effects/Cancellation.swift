extension Effect {
  /// Marks the effect cancellable by `id`. With `cancelInFlight`, starting it first cancels any
  /// effect already running under the same id.
  ///
  /// ```swift
  /// return .run { [query = state.query] send in
  ///   await send(.results(try await api.search(query)))
  /// }
  /// .cancellable(id: "search", cancelInFlight: true)
  /// ```
  public func cancellable(id: some Hashable & Sendable, cancelInFlight: Bool = false) -> Self {
    if isNone { return self }
    return Self(.cancellable(EffectID(id), cancelInFlight: cancelInFlight, self))
  }

  /// Cancels every running effect marked with `id`. A cancelled effect delivers nothing more.
  ///
  /// ```swift
  /// case .cancelSearchTapped:
  ///   return .cancel(id: "search")
  /// ```
  public static func cancel(id: some Hashable & Sendable) -> Self { Self(.cancel(EffectID(id))) }
}
