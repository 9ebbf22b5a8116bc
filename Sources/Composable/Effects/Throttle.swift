import Clocks

/// How a throttled effect is spaced: at most one start per `interval` for one id.
@usableFromInline
struct Throttle: Sendable {
  let interval: Duration
  let clock: AnyClock<Duration>
  /// Within a window, keep the latest effect (true) or the first (false) for its end.
  let latest: Bool
}

extension Effect {
  /// Starts at most one effect per `interval` for `id`. The first starts at once; one that
  /// arrives within the interval waits for its end, and of those only the latest (or, with
  /// `latest: false`, the first) runs.
  ///
  /// ```swift
  /// case .scrolled:
  ///   return .send(.loadMore).throttle(id: "load-more", for: .seconds(1), clock: clock)
  /// ```
  public func throttle(
    id: some Hashable & Sendable, for interval: Duration, clock: any Clock<Duration>,
    latest: Bool = true
  ) -> Self {
    if isNone { return self }
    return Self(
      .throttle(
        EffectID(id), Throttle(interval: interval, clock: AnyClock(clock), latest: latest), self)
    ).named("throttle")
  }
}
