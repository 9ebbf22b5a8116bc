import Composable

extension TestStoreHints {
  /// What a Lua test calls (`composable.test`), for the "To fix" hints of its TestStore.
  public static let lua = TestStoreHints(
    receive: "store:receive", skipReceivedActions: "store:skip_received_actions()",
    skipInFlightEffects: "store:skip_in_flight_effects()",
    finish: #""store:finish()" or "store:advance(seconds)""#,
    exhaustivityOff: "exhaustive = false in TestStore.new",
    advance: #""store:advance(seconds)""#, effectPrefix: "effect.")
}
