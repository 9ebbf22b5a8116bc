import Composable
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// A Lua test's `receive` reads a nested shorthand as the action it stands for: `{ type = "row",
/// id = "a", action = "tick" }` matches `{ type = "row", id = "a", action = { type = "tick" } }`,
/// which is how the for_each wrapper sends it back; a different child action still does not.
@Suite struct ReceiveShorthandTests {
  static let template = CompositionOrderTests.template

  func run(_ body: String) async throws -> [LuaTestResult.Outcome] {
    let directory = try makeTemporaryDirectory("receive-shorthand")
    try String(contentsOf: Self.template, encoding: .utf8).write(
      to: directory.appendingPathComponent("feat.lua"), atomically: true, encoding: .utf8)
    let source = """
      local TestStore = require("composable.test").TestStore
      it("receives", function()
        local store = TestStore.new{ feature = "feat" }
        store:send({ type = "row", id = "a", action = "start" })
        store:advance(1)
      \(body)
        store:skip_in_flight_effects()
      end)
      """
    return await LuaTestRunner().run(source: source, name: "feat_test.lua", directory: directory)
      .map(\.outcome)
  }

  @Test(arguments: [
    #"store:receive({ type = "row", id = "a", action = "tick" }, function(s) s.rows[1].ticks = 1 end)"#,
    #"store:receive({ type = "row", id = "a", action = { type = "tick" } }, function(s) s.rows[1].ticks = 1 end)"#,
    #"store:receive("row", function(s) s.rows[1].ticks = 1 end)"#,
  ])
  func theShorthandMatchesWhatArrived(_ receive: String) async throws {
    #expect(try await run("  " + receive) == [.passed])
  }

  @Test func anotherChildActionDoesNot() async throws {
    let outcomes = try await run(
      #"  store:receive({ type = "row", id = "a", action = "tock" })"#)
    guard case let .failed(messages) = outcomes.first else {
      Issue.record("expected a failure, got \(outcomes)")
      return
    }
    #expect(messages.contains { $0.contains("tock") }, "\(messages)")
  }
}
