import Foundation
import IssueReporting

/// Tells the current date: the system's live, a fixed one in tests.
public struct DateGenerator: Sendable {
  private let generate: @Sendable () -> Date

  /// A generator that calls `generate` each time a date is asked for.
  ///
  /// ```swift
  /// let date = DateGenerator { Date(timeIntervalSinceReferenceDate: 0) }
  /// ```
  public init(_ generate: @escaping @Sendable () -> Date) { self.generate = generate }

  /// The current date, as this generator tells it.
  public var now: Date { generate() }

  /// The current date: `date()` reads the same as `date.now`.
  public func callAsFunction() -> Date { generate() }

  /// The system's date, read at each call.
  public static let live = Self { Date() }

  /// Always `date`: for a test that checks what a feature does with the time.
  public static func constant(_ date: Date) -> Self { Self { date } }

  /// The test default (`DependencyValues.test`): reports an issue each time it is used, then
  /// answers the Unix epoch (1970-01-01 00:00:00 UTC).
  public static let unimplemented = Self {
    reportIssue(
      """
      A test used "date" without providing it.

      To fix, give the store a date, for instance with \
      "dependencies: { $0.date = .constant(Date(timeIntervalSince1970: 0)) }".
      """)
    return Date(timeIntervalSince1970: 0)
  }
}
