extension Effect {
  /// Waits `duration` on `clock` before starting the effect; a newer effect with the same `id`
  /// cancels the waiting one. Only the last of a burst runs.
  ///
  /// ```swift
  /// case let .queryChanged(query):
  ///   state.query = query
  ///   return .run { send in await send(.results(try await api.search(query))) }
  ///     .debounce(id: "search", for: .milliseconds(300), clock: clock)
  /// ```
  public func debounce(
    id: some Hashable & Sendable, for duration: Duration, clock: any Clock<Duration>
  ) -> Self {
    if isNone { return self }
    let wait = Self.run { _ in try await clock.sleep(for: duration) }
    return Self.concatenate(wait, self).cancellable(id: id, cancelInFlight: true).named("debounce")
  }
}
