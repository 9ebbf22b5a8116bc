import Foundation
import IssueReporting

/// Tells the current date: the system's live, a fixed one in tests.
public struct DateGenerator: Sendable {
  private let generate: @Sendable () -> Date

  public init(_ generate: @escaping @Sendable () -> Date) { self.generate = generate }

  public var now: Date { generate() }

  public func callAsFunction() -> Date { generate() }

  public static let live = Self { Date() }

  public static func constant(_ date: Date) -> Self { Self { date } }

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
