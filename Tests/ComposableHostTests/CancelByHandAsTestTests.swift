import Composable
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

@testable import ComposableHost

/// `:cancel N` ends an effect, which no test can do: `:test` wrote a test in which it ran on,
/// hid what it sent with skips, and said nothing. It now says so when it writes the test, and
/// a comment marks where; `:cancel` names what it ended.
@Suite struct CancelByHandAsTestTests {
  typealias Harness = ReplSessionTests.Harness

  static let source = """
    local effect = require("composable.effect")
    return {
      initial_state = function() return { ticks = 0 } end,
      reduce = function(state, action)
        if action.type == "start" then
          return effect.cancellable(effect.every(1, "tick"), "timer")
        elseif action.type == "tick" then
          state.ticks = state.ticks + 1
        end
      end,
    }
    """

  @Test func aCancelByHandIsSaidAndMarkedInTheTest() async throws {
    let repl = try Harness(source: Self.source)
    await repl.type("start", ":advance 1")
    let number = try #require(await repl.session.store.runningEffects.first?.number)
    #expect(
      await repl.type(":cancel \(number)").0
        == "  cancelled #\(number) effect.every id \"timer\"")
    await repl.type(":advance 2")
    let test = repl.file.deletingLastPathComponent().appendingPathComponent("counter_test.lua")
    let said = await repl.type(":test \(test.path)").0
    #expect(said.hasPrefix("  note: the session ended an effect with :cancel, which a test cannot"))
    let text = try String(contentsOf: test, encoding: .utf8)
    #expect(
      text.contains(
        #"    -- Here the session ended effect.every id "timer" with :cancel, which a test cannot do."#
      ), "\(text)")
  }

  /// A cancel undone (`:undo` past it, then a new action) is not said.
  @Test func aCancelOnABranchLeftBehindIsNotSaid() async throws {
    let repl = try Harness(source: Self.source)
    await repl.type("start", ":advance 1")
    let number = try #require(await repl.session.store.runningEffects.first?.number)
    await repl.type(":cancel \(number)", ":undo", "start")
    let test = repl.file.deletingLastPathComponent().appendingPathComponent("counter_test.lua")
    let said = await repl.type(":test \(test.path)").0
    #expect(!said.contains(":cancel"), "\(said)")
  }
}
