import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// `assert.same` compares numbers as the TestStore compares a state's (an attacker's finding:
/// it passed on a NaN of the other sign, which the TestStore reports as a change); `assert.equal`
/// is Lua's `==` but for NaN, which equals a NaN of its sign (it failed printing `-nan` on both
/// sides). Each pair is tried both ways, the verdict the TestStore's.
@Suite struct AssertionNumbersTests {
  /// Pairs of Lua numbers, and whether they are one value to a state.
  static let pairs: [(String, String, Bool)] = [
    ("0/0", "0/0", true), ("-(0/0)", "-(0/0)", true), ("0/0", "-(0/0)", false),
    ("1", "1.0", false), ("0.0", "-0.0", false), ("1", "1", true), ("2.5", "2.5", true),
    ("math.huge", "math.huge", true), ("math.huge", "-math.huge", false),
    ("math.maxinteger", "math.maxinteger + 0.0", false),
  ]

  func run(_ body: String) async throws -> [String: LuaTestResult.Outcome] {
    let folder = try makeTemporaryDirectory("assertions")
    let file = folder.appendingPathComponent("numbers_test.lua")
    try "describe(\"n\", function()\n\(body)\nend)\n".write(
      to: file, atomically: true, encoding: .utf8)
    var outcomes: [String: LuaTestResult.Outcome] = [:]
    for result in await LuaTestRunner().run(file: file) { outcomes[result.name] = result.outcome }
    return outcomes
  }

  @Test func sameAndEqualAgreeWithTheTestStore() async throws {
    var body = ""
    for (index, (a, b, _)) in Self.pairs.enumerated() {
      for (x, y, way) in [(a, b, "ab"), (b, a, "ba")] {
        body += "it(\"same \(index) \(way)\", function() assert.same({ v = \(x) }, { v = \(y) }) end)\n"
        body += "it(\"top \(index) \(way)\", function() assert.same(\(x), \(y)) end)\n"
        body += "it(\"equal \(index) \(way)\", function() assert.equal(\(x), \(y)) end)\n"
      }
    }
    let outcomes = try await run(body)
    for (index, (a, b, one)) in Self.pairs.enumerated() {
      for way in ["ab", "ba"] {
        for kind in ["same", "top"] {
          let outcome = outcomes["n \(kind) \(index) \(way)"]
          #expect(outcome.map(Self.passed) == one, "\(kind) \(a), \(b): \(String(describing: outcome))")
        }
        // `==` but NaN: 1 equals 1.0 and 0.0 equals -0.0, as in Lua.
        let equal = outcomes["n equal \(index) \(way)"]
        let luaEqual = one || ["1", "0.0"].contains(a)
        #expect(equal.map(Self.passed) == luaEqual, "equal \(a), \(b): \(String(describing: equal))")
      }
    }
  }

  /// Two floats that differ never print alike in a failure (an attacker's finding: `0.1 + 0.2`
  /// against `0.3` printed `0.3` on both sides, `tostring`'s 14 digits).
  @Test func floatsThatDifferPrintApart() async throws {
    let outcomes = try await run(
      """
      it("same", function() assert.same({ 0.1 + 0.2 }, { 0.3 }) end)
      it("equal", function() assert.equal(2^60 + 0.0, 2^60 + 2^8) end)
      it("whole", function() assert.same(9007199254740992, 2^53) end)
      """)
    for name in ["n same", "n equal", "n whole"] {
      guard case let .failed(messages)? = outcomes[name] else {
        Issue.record("\(name): \(String(describing: outcomes[name]))")
        continue
      }
      let text = messages.joined(separator: "\n")
      let sides = text.components(separatedBy: "Expected:")
      #expect(sides.count == 2, "\(text)")
      let shown = sides.map { $0.components(separatedBy: "Passed in:").last ?? $0 }
      #expect(shown.first?.trimmingCharacters(in: .whitespacesAndNewlines)
        != shown.last?.trimmingCharacters(in: .whitespacesAndNewlines), "\(text)")
    }
    #expect(
      outcomes["n same"].map { "\($0)" }?.contains("0.30000000000000004") == true,
      "\(String(describing: outcomes["n same"]))")
  }

  static func passed(_ outcome: LuaTestResult.Outcome) -> Bool {
    if case .passed = outcome { return true }
    return false
  }
}
