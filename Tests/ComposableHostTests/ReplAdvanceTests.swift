import Composable
import ComposableHost
import ComposableLua
import Foundation
import LuaKit
import Testing

/// `:advance N` delivers every tick and delayed action due within N seconds, in the order of
/// their deadlines, and returns after all of them are printed: the effects run on the
/// session's own thread, whose empty queue says that a wake-up's work has all run.
@Suite struct ReplAdvanceTests {
  static let source = """
    local effect = require("composable.effect")
    return {
      initial_state = function() return { ticks = 0, tocks = 0, chain = 0, log = {} } end,
      reduce = function(state, action)
        if action.type == "start" then
          return effect.merge(effect.every(1, "tick"), effect.every(1.5, "tock"),
            effect.after(0.25, "link"))
        elseif action.type == "tick" then
          state.ticks = state.ticks + 1
          table.insert(state.log, "tick")
        elseif action.type == "tock" then
          state.tocks = state.tocks + 1
          table.insert(state.log, "tock")
        elseif action.type == "link" then
          -- A delayed action that starts the next: each wake-up schedules the one after it.
          state.chain = state.chain + 1
          if state.chain < 40 then return effect.after(0.25, "link") end
        end
      end,
    }
    """

  /// The order the timers' actions are due in over `seconds`: ticks at 1, 2, ...; tocks at
  /// 1.5, 3, ...; at a tie (3, 6, ...) the tock, whose sleep began first (at 1.5, the tick's
  /// at 2): sleepers due at one instant wake in the order they went to sleep.
  static func expectedLog(through seconds: Int) -> [String] {
    var due: [(Double, Int, String)] = []
    for n in 1...seconds { due.append((Double(n), 1, "tick")) }
    var t = 1.5
    while t <= Double(seconds) {
      due.append((t, 0, "tock"))
      t += 1.5
    }
    return due.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map(\.2)
  }

  @Test(arguments: 0..<12)
  func advanceDeliversEveryTickDueInOrder(_ round: Int) async throws {
    let repl = try ReplSessionTests.Harness(source: Self.source)
    await repl.type("start")
    let printed = await repl.type(":advance 30").0
    #expect(await repl.type(":state ticks").0 == "  30")
    #expect(await repl.type(":state tocks").0 == "  20")
    #expect(await repl.type(":state chain").0 == "  40", "a chain of 40 quarter-second delays")
    let log = try repl.session.feature.state().log.tableValue?.sequence.map(\.stringValue)
    #expect(log == Self.expectedLog(through: 30))
    // Every action was printed before `:advance` returned.
    #expect(printed.components(separatedBy: "← ").count - 1 == 30 + 20 + 40)
    // Again: time goes on from where it stood.
    await repl.type(":advance 3")
    #expect(await repl.type(":state ticks").0 == "  33")
    #expect(await repl.type(":state tocks").0 == "  22")
  }

  /// A timer of a millisecond and `:advance 1000`: a million wake-ups. The advance stops at its
  /// time limit, says how far it got, and the session goes on from there.
  @Test func anAdvanceStopsAtItsTimeLimitAndSaysHowFarItGot() async throws {
    let source = """
      local effect = require("composable.effect")
      return {
        initial_state = function() return { ticks = 0 } end,
        reduce = function(state, action)
          if action.type == "start" then return effect.every(0.001, "tick") end
          state.ticks = state.ticks + 1
        end,
      }
      """
    let repl = try ReplSessionTests.Harness(source: source, advanceTimeLimit: .milliseconds(300))
    await repl.type("start")
    let printed = await repl.type(":advance 1000").0
    let errors = printed.split(separator: "\n").last.map(String.init) ?? ""
    let ticks = try #require(repl.session.feature.state().ticks.intValue)
    #expect(ticks > 0 && ticks < 1_000_000)
    let moved = repl.clock.now.offset
    #expect(moved < .seconds(1000))
    #expect(
      errors.hasPrefix("  error: :advance stopped after 0.3 seconds of real time, ")
        && errors.hasSuffix(
          " s of the 1000.0 s asked (a timer fires that often); :advance again to go on"),
      "\(errors)")
    #expect(printed.components(separatedBy: "← ").count - 1 == ticks)
    // Time goes on from there.
    await repl.type(":advance 0.01")
    #expect(repl.clock.now.offset == moved + .milliseconds(10))
  }
}
