import Composable
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

@testable import ComposableHost

/// A paused session's timers less than a millisecond apart keep their order in its test: the
/// test's times are kept to the microsecond. Rounded to milliseconds, the two timers below came
/// at the same advance and the test ran them the other way (an attacker's finding).
@Suite struct SubMillisecondTimersAsTestTests {
  static let source = """
    local effect = require("composable.effect")
    local F = {}
    function F.initial_state() return { seen = {} } end
    function F.reduce(state, action)
      if action.type == "x" then
        return effect.after(0.0010, { type = "got", who = "A" })
      elseif action.type == "y" then
        return effect.after(0.0005, { type = "got", who = "B" })
      elseif action.type == "got" then
        state.seen[#state.seen + 1] = action.who
      end
    end
    return F
    """

  @Test func timersHalfAMillisecondApartKeepTheirOrder() async throws {
    let repl = try ReplSessionTests.Harness(source: Self.source)
    for line in ["x", ":advance 0.0009", "y", ":advance 0.001"] { await repl.type(line) }
    #expect(try repl.session.feature.evaluate("state.seen[1], state.seen[2]") == ["A", "B"])
    let test = repl.file.deletingLastPathComponent().appendingPathComponent("timers_test.lua")
    let said = await repl.type(":test \(test.path)").0
    let text = try String(contentsOf: test, encoding: .utf8)
    #expect(said.contains(": 2 sent, 2 received; it passes (composable test "), "\(said)\n\(text)")
    #expect(text.contains("store:advance(0.0009)"), "\(text)")
  }

  /// Seconds written from nanoseconds, and times read to the nearest nanosecond where a
  /// double falls a hair below it.
  @Test func nanosecondsAreWrittenAsSeconds() {
    #expect(SessionTestPlan.seconds(1_000_000_000) == "1")
    #expect(SessionTestPlan.seconds(250_000_000) == "0.25")
    #expect(SessionTestPlan.seconds(900_000) == "0.0009")
    #expect(SessionTestPlan.seconds(400) == "0.0000004")
    #expect(SessionTestPlan.seconds(12_000_000_001) == "12.000000001")
    #expect(SessionTestPlan.nanoseconds(0.3, .down) == 300_000_000)
    #expect(SessionTestPlan.nanoseconds(0.0000000015, .down) == 1)
    #expect(SessionTestPlan.nanoseconds(0.0000000015, .up) == 2)
    #expect(SessionTestPlan.nanoseconds(.infinity, .up) == 1_000_000_000_000_000_000)
  }

  /// Timers 0.4 and 0.9 µs after an action, an action between them: to the microsecond, both
  /// came before it in the test (an attacker's finding).
  @Test func timersUnderAMicrosecondApartKeepTheirOrder() async throws {
    let source = Self.source.replacingOccurrences(of: "0.0010", with: "0.0000009")
      .replacingOccurrences(of: "0.0005", with: "0.0000004")
    let repl = try ReplSessionTests.Harness(source: source)
    for line in ["x", "y", ":advance 0.0000005", "y", ":advance 0.0000005"] { await repl.type(line) }
    let test = repl.file.deletingLastPathComponent().appendingPathComponent("tiny_test.lua")
    let said = await repl.type(":test \(test.path)").0
    let text = try String(contentsOf: test, encoding: .utf8)
    #expect(said.contains("; it passes (composable test "), "\(said)\n\(text)")
    #expect(text.contains("store:advance(0.0000004)"), "\(text)")
  }
}
