import ComposableHost
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// `:cancel N` cancels what `:effects` lists, and only that: a number it does not list (a part
/// of a debounce or a concatenation, which the store numbers too) is no effect (a new user's
/// finding: `:cancel 1` cancelled a debounce's wait, and the debounced effect ran at once with
/// time stopped). What it cancelled is gone from `:effects` by the next line.
@Suite struct CancelByNumberTests {
  static let source = """
    local effect = require("composable.effect")
    return {
      initial_state = function() return { n = 0 } end,
      reduce = function(state, action)
        if action.type == "search" then
          return effect.debounce(effect.send("found"), "search", 0.3)
        elseif action.type == "steps" then
          return effect.concat(effect.after(1, "found"), effect.after(1, "found"))
        elseif action.type == "found" then
          state.n = state.n + 1
        end
      end,
    }
    """

  /// The numbers `:effects` lists.
  func listed(_ repl: ReplSessionTests.Harness) async -> [Int] {
    await repl.type(":effects").0.split(separator: "\n").compactMap {
      Int($0.drop { $0 == " " || $0 == "#" }.prefix { $0.isNumber })
    }
  }

  @Test(arguments: ["search", "steps"])
  func aNumberEffectsDoesNotListIsNoEffect(action: String) async throws {
    let repl = try ReplSessionTests.Harness(source: Self.source)
    await repl.type(action)
    let shown = await listed(repl)
    #expect(shown.count == 1)
    for number in 0...12 where !shown.contains(number) {
      #expect(
        await repl.type(":cancel \(number)").0
          == "  error: no effect #\(number) is running; :effects lists them")
    }
    // Time stopped: nothing ran, and the effect still waits.
    #expect(try repl.session.feature.state() == ["n": 0])
    #expect(await listed(repl) == shown)
    await repl.type(":advance 2.5")
    #expect(try repl.session.feature.state() == ["n": action == "search" ? 1 : 2])
  }

  @Test func whatIsCancelledIsNotListedOnTheNextLine() async throws {
    let repl = try ReplSessionTests.Harness(source: Self.source)
    await repl.type("search")
    let number = try #require(await listed(repl).first)
    let said = await repl.session.handle(":cancel \(number)")
    _ = said
    #expect(await repl.type(":effects").0 == "  no effects running")
    await repl.type(":advance 1")
    #expect(try repl.session.feature.state() == ["n": 0])
  }
}
