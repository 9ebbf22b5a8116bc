import Foundation
import IssueReporting

/// Makes UUIDs: random ones live, predictable ones in tests.
public struct UUIDGenerator: Sendable {
  private let generate: @Sendable () -> UUID

  /// A generator that calls `generate` each time a UUID is asked for.
  ///
  /// ```swift
  /// let uuid = UUIDGenerator { UUID(uuidString: "00000000-0000-0000-0000-0000000000AA")! }
  /// ```
  public init(_ generate: @escaping @Sendable () -> UUID) { self.generate = generate }

  /// A new UUID: call the generator as a function, `uuid()`.
  public func callAsFunction() -> UUID { generate() }

  /// Random UUIDs, from `UUID()`.
  public static let live = Self { UUID() }

  /// 00000000-0000-0000-0000-000000000000, then ...0001, and so on.
  public static var incrementing: Self {
    let counter = LockedCounter()
    return Self {
      let value = counter.next()
      return UUID(uuidString: String(format: "00000000-0000-0000-0000-%012llX", value))!
    }
  }

  /// The test default (`DependencyValues.test`): reports an issue each time it is used, then
  /// answers DEADBEEF-DEAD-BEEF-DEAD-BEEFDEADBEEF.
  public static let unimplemented = Self {
    reportIssue(
      """
      A test used "uuid" without providing it.

      To fix, give the store a UUID generator, for instance with \
      "dependencies: { $0.uuid = .incrementing }".
      """)
    return UUID(uuidString: "DEADBEEF-DEAD-BEEF-DEAD-BEEFDEADBEEF")!
  }
}

final class LockedCounter: @unchecked Sendable {
  private let lock = NSLock()
  private var value: UInt64 = 0

  func next() -> UInt64 {
    lock.lock()
    defer { lock.unlock() }
    defer { value += 1 }
    return value
  }
}
