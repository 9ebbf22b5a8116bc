extension TestStore {
  /// True when the effects run on a single-thread executor with a `ManualClock` (as a Lua test's
  /// do): once the executor has settled, nothing more happens until the test moves the clock,
  /// so a `receive` or `finish` that finds nothing says so at once, in the clock's time, rather
  /// than after waiting out a timeout in wall time.
  var waitsOnTestClockOnly: Bool {
    SingleThreadExecutor.current != nil && dependencies.clock is ManualClock
  }

  /// Where the test clock stands and when the next effect asleep on it wakes.
  var testClockNote: String {
    guard let clock = dependencies.clock as? ManualClock else { return "" }
    let now = seconds(clock.now.offset)
    guard let next = clock.nextDeadline else {
      return "Nothing waits on the test clock (it stands at \(now) seconds)."
    }
    return """
      The test clock stands at \(now) seconds; the next effect waiting on it wakes at \
      \(seconds(next.offset)) seconds.
      """
  }

  /// `effect.debounce (id "search")`, and with `line`, `, started at line 12`: what an effect
  /// in flight is, in the test's language.
  func describeEffect(
    _ effect: TestRecorder<State, Action>.InFlightEffect, line: Bool = true
  ) -> String {
    var text = effectKindName(effect.info.kind, prefix: hints.effectPrefix) ?? "an effect"
    if let id = effect.info.ids.last { text += " with id \(id)" }
    return line ? text + ", started at line \(effect.location.line)" : text
  }
}

/// Seconds as a person reads them: `0.5`, `2.0`, `0.25`.
func seconds(_ duration: Duration) -> String {
  "\(Seconds.of(duration))"
}
