import Composable
import ComposableHost
import ComposableLua
import Foundation
import LuaKit
import Testing

/// `:replay` and `--replay`: the session's actions again through the code loaded now, with the
/// difference in the state shown and the first action that now goes otherwise flagged.
@Suite struct ReplayOnReloadTests {
  typealias Harness = ReplSessionTests.Harness

  func edit(_ repl: Harness, _ old: String, _ new: String) throws {
    let source = try String(contentsOf: repl.file, encoding: .utf8)
    #expect(source.contains(old))
    try source.replacingOccurrences(of: old, with: new)
      .write(to: repl.file, atomically: true, encoding: .utf8)
  }

  @Test func aChangedFieldIsShownAsTheDifference() async throws {
    let repl = try Harness()
    await repl.type("increment", "increment", #"{ type = "add", item = "x" }"#)
    try edit(repl, "state.count = state.count + 1", "state.count = state.count + 10")
    await repl.type(":reload")
    #expect(await repl.type(":replay").0 == """
        replayed 3 actions through the code loaded now
        − count = 2
        + count = 20
      """)
    // The replayed state is where the session goes on, and what a jump comes back to.
    #expect(await repl.type("increment").0 == "  − count = 20\n  + count = 30")
    await repl.type(":goto 2")
    #expect(await repl.type(":state count").0 == "  20")
  }

  @Test func theFirstActionThatNowRaisesIsFlaggedByNumber() async throws {
    let repl = try Harness()
    for _ in 1...6 { await repl.type("increment") }
    await repl.type(#"{ type = "add", item = "x" }"#, "increment")
    try edit(repl, "table.insert(state.items, action.item)", #"error("no more adding")"#)
    await repl.type(":reload")
    let replayed = await repl.type(":replay").0
    let lines = replayed.split(separator: "\n").map(String.init)
    #expect(lines.prefix(2) == ["  replayed 8 actions through the code loaded now", #"  − items[1] = "x""#])
    #expect(lines.count == 3 && lines[2]
      == #"  action 7 ({ item = "x", type = "add" }) now raises: counter.lua:20: no more adding"#)
    #expect(await repl.type(":state").0 == "  { count = 7, items = {} }")
  }

  /// An action that raised when recorded and raises still is not news; one that raised and
  /// no longer does is counted.
  @Test func actionsThatRaisedBeforeAreNotFlaggedAgain() async throws {
    let repl = try Harness()
    await repl.type("increment", "boom", "increment")
    let same = await repl.type(":replay").0
    #expect(same == """
        replayed 3 actions through the code loaded now
        the state is as it was
      """)
    try edit(repl, #"error("boom")"#, "")
    await repl.type(":reload")
    let changed = await repl.type(":replay").0
    #expect(changed == """
        replayed 3 actions through the code loaded now
        − count = 2
        + count = 100
        1 action that raised when recorded no longer raises
      """)
  }

  @Test func anEffectThatChangedIsFlaggedWithBothSides() async throws {
    let repl = try Harness()
    await repl.type("increment", "later")
    try edit(repl, #"return effect.after(1, "increment")"#, #"return effect.after(2, "increment")"#)
    await repl.type(":reload")
    let replayed = await repl.type(":replay").0
    let lines = replayed.split(separator: "\n").map(String.init)
    // The `later` in flight is cancelled first: it belongs to the timeline being replaced.
    #expect(lines.count == 6, "\(replayed)")
    #expect(lines[0].hasPrefix("  cancelled #") && lines[0].hasSuffix(" effect.after"))
    #expect(lines[2] == "  the state is as it was")
    #expect(lines[3] == #"  action 2 ({ type = "later" }) now returns another effect:"#)
    #expect(lines[4] == #"    − effect = { action = "increment", kind = "after", seconds = 1 }"#)
    #expect(lines[5] == #"    + effect = { action = "increment", kind = "after", seconds = 2 }"#)
  }

  /// The effect in flight belongs to the old timeline: a replay cancels it and says so.
  @Test func aReplayCancelsTheEffectsInFlight() async throws {
    let repl = try Harness()
    await repl.type("later")
    let replayed = await repl.type(":replay").0
    #expect(replayed.hasPrefix("  cancelled #") && replayed.contains(" effect.after\n"))
    await repl.clock.advance(by: .seconds(2))
    #expect(await repl.type(":state count").0 == "  0")
  }

  @Test func withReplayOnReloadEverySaveReplays() async throws {
    let repl = try Harness(replaysOnReload: true)
    await repl.type("increment", "increment")
    try edit(repl, "state.count = state.count + 1", "state.count = state.count + 5")
    let reloaded = await repl.type(":reload").0
    #expect(reloaded.hasPrefix("reloaded counter.lua in "))
    #expect(reloaded.hasSuffix("""
        replayed 2 actions through the code loaded now
        − count = 2
        + count = 10
      """))
  }

  @Test func nothingToReplayIsSaid() async throws {
    let repl = try Harness()
    #expect(await repl.type(":replay").0 == "  no actions to replay")
  }
}
