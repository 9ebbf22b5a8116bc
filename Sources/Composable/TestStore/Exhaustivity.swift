/// How much a TestStore insists on.
public enum Exhaustivity: Equatable, Sendable {
  /// Every state change asserted, every received action handled, every effect finished.
  case on
  /// Only what the test mentions is checked. With `showSkippedAssertions`, what was not
  /// checked is still reported, as warnings.
  case off(showSkippedAssertions: Bool)

  /// `off(showSkippedAssertions: false)`: checks only what the test asserts, and says nothing of
  /// the rest.
  public static let off = Self.off(showSkippedAssertions: false)
}
