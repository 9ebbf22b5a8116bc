/// Where a store's generators stand: what `uuid` and `random` give next. Time travel keeps it
/// after each action and puts the generators back there, so that an action sent after a jump
/// back draws what it would have drawn had the actions undone never been sent (as a run of the
/// same actions does), not what comes after their draws.
public struct GeneratorPositions: Equatable, Sendable {
  /// An `incrementing` UUID generator's next count; nil for any other, which does not go back.
  public var uuid: UInt64?
  /// How many numbers the random source has given.
  public var random: UInt64

  /// Positions, as `DependencyValues.generatorPositions` reads them.
  ///
  /// ```swift
  /// let start = GeneratorPositions(uuid: 0, random: 0)  // a fresh `.incrementing`, any seed
  /// ```
  public init(uuid: UInt64?, random: UInt64) {
    self.uuid = uuid
    self.random = random
  }
}

extension DependencyValues {
  /// Where the UUID generator and the random source stand now.
  public var generatorPositions: GeneratorPositions {
    GeneratorPositions(uuid: uuid.position, random: random.position)
  }

  /// Puts the UUID generator (an `incrementing` one) and the random source where `positions`
  /// says. They are shared by every copy of these values: the store's move too.
  ///
  /// ```swift
  /// let before = dependencies.generatorPositions
  /// _ = dependencies.uuid()
  /// dependencies.moveGenerators(to: before)  // the same UUID comes next again
  /// ```
  public func moveGenerators(to positions: GeneratorPositions) {
    if let position = positions.uuid { uuid.move(to: position) }
    random.move(to: positions.random)
  }
}
