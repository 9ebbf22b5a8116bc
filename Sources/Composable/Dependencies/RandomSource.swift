import Foundation

/// Random numbers from a seed: the same seed gives the same numbers on every machine, so a
/// feature that rolls dice can still be tested exhaustively.
public final class RandomSource: @unchecked Sendable {
  private let lock = NSLock()
  private let seed: UInt64
  private var state: UInt64
  private var given: UInt64 = 0

  /// A source that starts from `seed`: the same seed gives the same numbers.
  ///
  /// ```swift
  /// let dice = RandomSource(seed: 42)
  /// let roll = dice.integer(in: 1...6)
  /// ```
  public init(seed: UInt64) {
    self.seed = seed
    self.state = seed
  }

  /// Seeded from the system's randomness.
  public static var live: RandomSource { RandomSource(seed: UInt64.random(in: .min ... .max)) }

  /// How many numbers it has given since its seed (`next()` calls: `unit()` and `integer(in:)`
  /// take one each).
  public var position: UInt64 { lock.withLock { given } }

  /// Goes back (or forward) to where it stood after giving `position` numbers: the next number
  /// is the one it gave then. Time travel puts a store's source where it stood after an action.
  ///
  /// ```swift
  /// let dice = RandomSource(seed: 42)
  /// let first = dice.next()
  /// dice.move(to: 0)
  /// assert(dice.next() == first)
  /// ```
  public func move(to position: UInt64) {
    lock.withLock {
      given = position
      state = seed &+ position &* Self.gamma
    }
  }

  /// SplitMix64's step: the state moves by it each number, so where the state stands after
  /// `n` numbers is the seed plus `n` of it.
  private static let gamma: UInt64 = 0x9E37_79B9_7F4A_7C15

  /// SplitMix64: small, fast, and well spread.
  public func next() -> UInt64 {
    lock.lock()
    defer { lock.unlock() }
    given &+= 1
    state &+= Self.gamma
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A float in [0, 1).
  public func unit() -> Double { Double(next() >> 11) / Double(UInt64(1) << 53) }

  /// An integer in `range`.
  public func integer(in range: ClosedRange<Int>) -> Int {
    let span = UInt64(bitPattern: Int64(range.upperBound &- range.lowerBound)) &+ 1
    if span == 0 { return Int(bitPattern: UInt(next())) }  // the whole range of Int
    return range.lowerBound &+ Int(truncatingIfNeeded: next() % span)
  }
}
