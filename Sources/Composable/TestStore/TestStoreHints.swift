/// The names a TestStore's "To fix" hints give its methods, in the language of the test.
public struct TestStoreHints: Equatable, Sendable {
  /// How the test asserts a received action (`store.receive`).
  public var receive: String
  /// How the test skips the received actions it does not assert.
  public var skipReceivedActions: String
  /// How the test cancels the effects still running.
  public var skipInFlightEffects: String
  /// How the test waits for the effects to finish.
  public var finish: String
  /// How the test turns exhaustivity off.
  public var exhaustivityOff: String
  /// How the test moves its clock.
  public var advance: String
  /// What comes before an effect's kind (`debounce`) where a message names it.
  public var effectPrefix: String

  /// Hints that name each method as given: for a layer that drives a TestStore from another
  /// language.
  ///
  /// ```swift
  /// store.hints = TestStoreHints(
  ///   receive: "store:receive", skipReceivedActions: "store:skip_received_actions()",
  ///   skipInFlightEffects: "store:skip_in_flight_effects()", finish: #""store:finish()""#,
  ///   exhaustivityOff: "exhaustive = false in TestStore.new",
  ///   advance: #""store:advance(seconds)""#, effectPrefix: "effect.")
  /// ```
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
