import Clocks
import Foundation

/// The outside world a feature uses, with a live value for apps and a test value for tests.
///
/// Reducers receive them explicitly when they are built (`Store(initialState:dependencies:
/// reducer:)`), rather than through a task-local lookup: that keeps a send free of lookups,
/// and Lua features get the same values through their `env`. The clock, UUIDs, the date,
/// randomness and the executor are properties; other clients (HTTP, files, an app's own) are
/// each a `DependencyKey`, reached by `values[Key.self]`.
public struct DependencyValues: Sendable {
  /// The clock effects wait on: a `ContinuousClock` live; in tests, a clock that reports an issue
  /// when used, until the test sets its own (a `TestClock` or a `ManualClock`).
  public var clock: any Clock<Duration>
  /// Makes UUIDs: random ones live; in tests, one that reports an issue when used, until the test
  /// sets its own (`.incrementing`, say).
  public var uuid: UUIDGenerator
  /// Tells the current date: the system's live; in tests, one that reports an issue when used,
  /// until the test sets its own (`.constant(_:)`, say).
  public var date: DateGenerator
  /// Seeded randomness: system-seeded live, seed 0 in tests (override with `RandomSource(seed:)`).
  public var random: RandomSource
  /// Where a store runs its effects: nil for the global executor; a test's own executor (a
  /// `SingleThreadExecutor`, say) so the test knows when they have gone as far as they can.
  public var effectExecutor: (any TaskExecutor)?
  private var storage: [ObjectIdentifier: any Sendable] = [:]
  private let isTest: Bool

  /// The real world: the continuous clock, random UUIDs, the system date.
  public static var live: Self {
    Self(clock: ContinuousClock(), uuid: .live, date: .live, random: .live, isTest: false)
  }

  /// For tests: every dependency but `random` (seeded with 0) fails the test when used until the
  /// test provides it.
  public static var test: Self {
    Self(
      clock: UnimplementedClock(name: "clock"), uuid: .unimplemented, date: .unimplemented,
      random: RandomSource(seed: 0), isTest: true)
  }

  init(
    clock: any Clock<Duration>, uuid: UUIDGenerator, date: DateGenerator, random: RandomSource,
    isTest: Bool
  ) {
    self.clock = clock
    self.uuid = uuid
    self.date = date
    self.random = random
    self.isTest = isTest
  }

  /// A dependency of the app's own, by its key.
  public subscript<Key: DependencyKey>(key: Key.Type) -> Key.Value {
    get {
      if let value = storage[ObjectIdentifier(key)] as? Key.Value { return value }
      return isTest ? Key.testValue : Key.liveValue
    }
    set { storage[ObjectIdentifier(key)] = newValue }
  }
}

/// A dependency of the app's own: its type, live value and test value.
public protocol DependencyKey {
  /// The type of the dependency: a client struct, usually.
  associatedtype Value: Sendable
  /// The value a `Store` gets unless its `dependencies` closure sets another.
  static var liveValue: Value { get }
  /// The value a `TestStore` gets unless the test sets another: one that fails the test when
  /// used is the usual choice.
  static var testValue: Value { get }
}
