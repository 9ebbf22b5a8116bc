import Foundation
import IssueReporting

/// Makes UUIDs: random ones live, predictable ones in tests.
public struct UUIDGenerator: Sendable {
  private let generate: @Sendable () -> UUID
  /// An `incrementing` generator's count, which `position` reads and `move(to:)` sets.
  private let counter: LockedCounter?

  /// A generator that calls `generate` each time a UUID is asked for.
  ///
  /// ```swift
  /// let uuid = UUIDGenerator { UUID(uuidString: "00000000-0000-0000-0000-0000000000AA")! }
  /// ```
  public init(_ generate: @escaping @Sendable () -> UUID) {
    self.generate = generate
    self.counter = nil
  }

  private init(counter: LockedCounter, _ generate: @escaping @Sendable () -> UUID) {
    self.generate = generate
    self.counter = counter
  }

  /// A new UUID: call the generator as a function, `uuid()`.
  public func callAsFunction() -> UUID { generate() }

  /// Random UUIDs, from `UUID()`.
  public static let live = Self { UUID() }

  /// 00000000-0000-0000-0000-000000000000, then ...0001, and so on.
  public static var incrementing: Self { incrementing(from: 0) }

  /// `incrementing`, from the UUID whose last 12 hex digits are `first` (then `first + 1`, ...):
  /// `incrementing(from: 4)` begins at 00000000-0000-0000-0000-000000000004. The count goes on
  /// from 0 past FFFFFFFFFFFF, the last such UUID.
  public static func incrementing(from first: UInt64) -> Self {
    let counter = LockedCounter(first)
    return Self(counter: counter) {
      let value = counter.next() & incrementingLast
      return UUID(uuidString: String(format: "00000000-0000-0000-0000-%012llX", value))!
    }
  }

  /// The count of the next UUID an `incrementing` generator makes; nil for any other (random
  /// UUIDs, a closure's), which has no place to go back to.
  public var position: UInt64? { counter?.value }

  /// Makes an `incrementing` generator's next UUID the one whose count is `position`; does
  /// nothing to any other. Time travel puts a store's generator where it stood after an action.
  ///
  /// ```swift
  /// let uuid = UUIDGenerator.incrementing
  /// _ = uuid()  // ...0000
  /// uuid.move(to: 0)
  /// uuid()  // ...0000 again
  /// ```
  public func move(to position: UInt64) { counter?.set(position) }

  /// The count of the last UUID `incrementing` makes before it goes on from 0: 12 hex digits.
  public static let incrementingLast: UInt64 = 0xFFFF_FFFF_FFFF

  /// The count an `incrementing` UUID holds (its last 12 hex digits), from its text in either
  /// case; nil for any other text.
  ///
  /// ```swift
  /// UUIDGenerator.incrementingCount("00000000-0000-0000-0000-00000000000a")  // 10
  /// ```
  public static func incrementingCount(_ text: some StringProtocol) -> UInt64? {
    let utf8 = text.utf8
    guard utf8.count == 36, utf8.starts(with: "00000000-0000-0000-0000-".utf8) else { return nil }
    let digits = utf8.dropFirst(24)
    guard digits.allSatisfy({ $0 < 0x80 && Character(Unicode.Scalar($0)).isHexDigit }) else {
      return nil
    }
    return UInt64(String(decoding: digits, as: UTF8.self), radix: 16)
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
  private var current: UInt64

  init(_ first: UInt64 = 0) { current = first }

  /// The value `next()` gives next.
  var value: UInt64 { lock.withLock { current } }

  func set(_ value: UInt64) { lock.withLock { current = value } }

  func next() -> UInt64 {
    lock.lock()
    defer { lock.unlock() }
    defer { current &+= 1 }
    return current
  }
}
