/// The outcome of one Lua test.
public struct LuaTestResult: Equatable, Sendable {
  public enum Outcome: Equatable, Sendable {
    case passed
    /// Each failure as `file:line: message`.
    case failed([String])
    case pending
  }

  /// The test's name, with the names of the `describe` blocks around it.
  public var name: String
  /// The test file, as the runner was given it, and the line of its `it`.
  public var file: String
  public var line: Int
  public var outcome: Outcome
  public var seconds: Double
  /// What the test printed, line by line: shown under the test in the readable report, and
  /// never in TAP or JUnit, whose readers would take it for theirs.
  public var output: [String]

  public init(
    name: String, file: String, line: Int, outcome: Outcome, seconds: Double,
    output: [String] = []
  ) {
    self.name = name
    self.file = file
    self.line = line
    self.outcome = outcome
    self.seconds = seconds
    self.output = output
  }
}
