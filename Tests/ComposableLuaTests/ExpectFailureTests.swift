import Composable
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// `expect_failure(pattern, body)` in a Lua test: the failures `body`'s TestStore calls cause
/// are expected when one matches the pattern, and a failure of its own when none does.
@Suite struct ExpectFailureTests {
  static let feature = """
    return {
      initial_state = function() return { n = 0 } end,
      reduce = function(state, action)
        if action.type == "boom" then state.n = 99 error("no booms here") end
        if action.type == "add" then state.n = state.n + 1 end
        if action.type == "long" then error(string.rep("a", 1000)) end
      end,
    }
    """

  func run(_ body: String) async throws -> [LuaTestResult.Outcome] {
    let directory = try makeTemporaryDirectory("expect-failure")
    try Self.feature.write(
      to: directory.appendingPathComponent("boom.lua"), atomically: true, encoding: .utf8)
    let source = """
      local TestStore = require("composable.test").TestStore
      it("expects", function()
        local store = TestStore.new{ feature = "boom" }
      \(body)
      end)
      """
    return await LuaTestRunner().run(source: source, name: "boom_test.lua", directory: directory)
      .map(\.outcome)
  }

  @Test func aFailureThatMatchesIsExpectedAndTheTestGoesOn() async throws {
    let outcomes = try await run(
      """
        local removed = expect_failure("no booms here", function() store:send("boom") end)
        assert.equal(1, removed)
        store:send("add", function(s) s.n = 1 end)
      """)
    #expect(outcomes == [.passed])
  }

  @Test func noFailureIsAFailureAtTheExpectation() async throws {
    let outcomes = try await run(
      """
        expect_failure("no booms here", function() store:send("add", function(s) s.n = 1 end) end)
      """)
    #expect(outcomes == [.failed([#"boom_test.lua:4: Expected a failure matching "no booms here", but none was recorded"#])])
  }

  /// A failure that does not match stays, and the expectation fails too.
  @Test func aFailureThatDoesNotMatchStays() async throws {
    let outcomes = try await run(
      """
        expect_failure("something else", function() store:send("boom") end)
      """)
    guard case let .failed(messages) = outcomes.first else {
      Issue.record("expected a failure, got \(outcomes)")
      return
    }
    #expect(messages.count == 2)
    #expect(messages.first?.contains("no booms here") == true)
    #expect(messages.last == #"boom_test.lua:4: Expected a failure matching "something else", but none of those recorded matched"#)
  }

  @Test func aBadArgumentIsAnErrorAtItsLine() async throws {
    let outcomes = try await run(#"  expect_failure(42, function() end)"#)
    guard case let .failed(messages) = outcomes.first else {
      Issue.record("expected a failure, got \(outcomes)")
      return
    }
    #expect(messages.first?.hasPrefix(
      "expect_failure: expected a pattern (a string), got number") == true
      || messages.first?.contains("boom_test.lua:4: expect_failure: expected a pattern") == true,
      "\(messages)")
  }

  /// A pattern that is not one is named so; a valid one that backtracks past the budget over a
  /// long message is named as that, not as a broken pattern.
  @Test func aBrokenPatternAndATooSlowOneAreToldApart() async throws {
    let broken = try await run(#"  expect_failure("boom[", function() store:send("boom") end)"#)
    guard case let .failed(brokenMessages) = broken.first else {
      Issue.record("expected a failure, got \(broken)")
      return
    }
    #expect(
      brokenMessages.contains { $0.contains("expect_failure: the pattern is not a Lua pattern") },
      "\(brokenMessages)")
    let slow = try await run(
      #"  expect_failure(string.rep("a-", 30) .. "Z", function() store:send("long") end)"#)
    guard case let .failed(slowMessages) = slow.first else {
      Issue.record("expected a failure, got \(slow)")
      return
    }
    #expect(
      slowMessages.contains {
        $0.contains("expect_failure: matching the pattern against a failure's message ran past")
          && $0.contains("To fix, use a pattern that backtracks less")
      }, "\(slowMessages)")
  }

  /// An action that cannot reach the feature (a function in it) is named as the REPL names it,
  /// at the test's line.
  @Test func anActionThatIsNotDataIsNamedWhereItIs() async throws {
    let outcomes = try await run(
      """
        store:send({ type = "add", title = function() end })
      """)
    guard case let .failed(messages) = outcomes.first else {
      Issue.record("expected a failure, got \(outcomes)")
      return
    }
    #expect(
      messages.first?.hasSuffix("send: action.title: a function is not data") == true,
      "\(messages)")
  }
}
