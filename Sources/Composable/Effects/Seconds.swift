/// A number of seconds, as people and scripts write it, turned into a `Duration`: the one place
/// that conversion happens, and it checks. `Int64(seconds * 1000)` traps on NaN, infinity and
/// anything past 2^63 milliseconds, and a typo (`effect.after(1e300, ...)`, `--wait nan`) must be
/// a clear error, not a crash.
public enum Seconds {
  /// The longest wait there is: about 31 years. Longer is taken for a mistake.
  public static let maximum: Double = 1e9

  /// `seconds` as a duration, or nil when it is NaN, negative, infinite or over `maximum`.
  public static func duration(_ seconds: Double) -> Duration? {
    guard seconds.isFinite, seconds >= 0, seconds <= maximum else { return nil }
    return .nanoseconds(Int64((seconds * 1e9).rounded()))
  }

  /// `duration` in seconds, for messages and figures.
  public static func of(_ duration: Duration) -> Double {
    let (whole, attoseconds) = duration.components
    return Double(whole) + Double(attoseconds) / 1e18
  }

  /// What a message says is expected: "a number of seconds from 0 to 1e9".
  public static let expected = "a number of seconds from 0 to 1e9"
}
