import Clocks

extension Effect {
  /// Sends `action` every `interval` on `clock` until cancelled. Timers are tasks asleep on the
  /// clock, not threads: hundreds of them in one store cost no thread each.
  ///
  /// ```swift
  /// case .startButtonTapped:
  ///   return .timer(every: .seconds(1), clock: clock, send: .tick).cancellable(id: "timer")
  /// ```
  public static func timer(
    every interval: Duration, clock: any Clock<Duration>, send action: Action
  ) -> Self {
    Self.run { send in
      for await _ in clock.timer(interval: interval) {
        await send(action)
      }
    }.named("timer")
  }

  /// Sends `action` once, after `delay` on `clock`.
  ///
  /// ```swift
  /// case .saved:
  ///   state.toast = "Saved"
  ///   return .after(.seconds(3), clock: clock, send: .toastTimedOut)
  /// ```
  public static func after(
    _ delay: Duration, clock: any Clock<Duration>, send action: Action
  ) -> Self {
    Self.run { send in
      try await clock.sleep(for: delay)
      await send(action)
    }.named("after")
  }
}
