/// The outcome of one Lua test.
public struct LuaTestResult: Equatable, Sendable {
  /// How a test ended.
  public enum Outcome: Equatable, Sendable {
    /// The test ran and nothing failed.
    case passed
    /// Each failure as `file:line: message`.
    case failed([String])
    /// The test was declared with `pending` and did not run.
    case pending
  }

  /// The test's name, with the names of the `describe` blocks around it.
  public var name: String
  /// The test file, as the runner was given it, and the line of its `it`.
  public var file: String
  /// The line of the test's `it` (or `pending`) in `file`; 0 when the file did not load.
  public var line: Int
  /// Whether the test passed, failed or is pending.
  public var outcome: Outcome
  /// How long the test ran, in seconds: 0 when it did not run.
  public var seconds: Double
  /// What the test printed, line by line: shown under the test in the readable report, and
  /// never in TAP or JUnit, whose readers would take it for theirs. At most `outputLimit` bytes
  /// of it, then a line saying how much more was printed.
  public var output: [String]

  /// The most bytes of what one test printed that its result keeps (1 MiB): a test printing in
  /// a loop fills the report, not the runner's memory.
  public static let outputLimit = 1 << 20

  /// The most bytes of what the tests of one file printed that their results keep in all
  /// (16 MiB): a file of a thousand tests that each print their limit fills no more.
  public static let outputLimitPerFile = 16 << 20

  /// A result, as a runner reports it.
  ///
  /// ```swift
  /// let result = LuaTestResult(
  ///   name: "counter increments", file: "counter_test.lua", line: 4, outcome: .passed,
  ///   seconds: 0.002)
  /// ```
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
