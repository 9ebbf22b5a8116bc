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

  public init(
    receive: String, skipReceivedActions: String, skipInFlightEffects: String, finish: String,
    exhaustivityOff: String, advance: String, effectPrefix: String
  ) {
    self.receive = receive
    self.skipReceivedActions = skipReceivedActions
    self.skipInFlightEffects = skipInFlightEffects
    self.finish = finish
    self.exhaustivityOff = exhaustivityOff
    self.advance = advance
    self.effectPrefix = effectPrefix
  }

  /// Swift's: what a Swift test calls. A layer that drives a TestStore from another language
  /// gives its own (ComposableLua's `.lua`).
  public static let swift = TestStoreHints(
    receive: "store.receive", skipReceivedActions: "await store.skipReceivedActions()",
    skipInFlightEffects: "await store.skipInFlightEffects()",
    finish: #""await store.finish()" or "await task.finish()""#,
    exhaustivityOff: "store.exhaustivity = .off",
    advance: #""await clock.advance(by:)""#, effectPrefix: ".")
}
