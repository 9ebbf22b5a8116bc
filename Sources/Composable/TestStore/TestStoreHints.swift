/// The names a TestStore's "To fix" hints give its methods, in the language of the test.
public struct TestStoreHints: Equatable, Sendable {
  public var receive: String
  public var skipReceivedActions: String
  public var skipInFlightEffects: String
  public var finish: String
  public var exhaustivityOff: String
  /// How the test moves its clock.
  public var advance: String
  /// What comes before an effect's kind (`debounce`) where a message names it.
  public var effectPrefix: String

  public static let swift = TestStoreHints(
    receive: "store.receive", skipReceivedActions: "await store.skipReceivedActions()",
    skipInFlightEffects: "await store.skipInFlightEffects()",
    finish: #""await store.finish()" or "await task.finish()""#,
    exhaustivityOff: "store.exhaustivity = .off",
    advance: #""await clock.advance(by:)""#, effectPrefix: ".")

  public static let lua = TestStoreHints(
    receive: "store:receive", skipReceivedActions: "store:skip_received_actions()",
    skipInFlightEffects: "store:skip_in_flight_effects()",
    finish: #""store:finish()" or "store:advance(seconds)""#,
    exhaustivityOff: "exhaustive = false in TestStore.new",
    advance: #""store:advance(seconds)""#, effectPrefix: "effect.")
}
