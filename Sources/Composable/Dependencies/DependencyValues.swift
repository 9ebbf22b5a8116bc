import Clocks
import Foundation

/// The outside world a feature uses, with a live value for apps and a test value for tests.
///
/// Reducers receive them explicitly when they are built (`Store(initialState:dependencies:
/// reducer:)`), rather than through a task-local lookup: that keeps a send free of lookups,
/// and Lua features get the same values through their `env`. Each client (the clock, HTTP,
/// files, ...) is a `DependencyKey` of its own.
public struct DependencyValues: Sendable {
  public var clock: any Clock<Duration>
  public var uuid: UUIDGenerator
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

  /// For tests: every dependency fails the test when used until the test provides it.
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
  associatedtype Value: Sendable
  static var liveValue: Value { get }
  static var testValue: Value { get }
}
