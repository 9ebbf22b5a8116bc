import Composable
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// A Lua test's `http` fake honours the request's `timeout`: a `delay` past it fails at the
/// timeout, in the live client's words (`LiveHTTPClientTests` pins them against a real
/// server), and one within it answers at its delay.
@Suite struct HTTPFakeTimeoutTests {
  static let feature = """
    local effect = require("composable.effect")
    return {
      initial_state = function() return {} end,
      reduce = function(state, action)
        if action.type == "fetch" then
          return effect.http{ url = "http://api.test/slow", timeout = action.timeout,
            response = "fetched" }
        elseif action.type == "fetched" then
          state.ok, state.error, state.body = action.ok, action.error, action.body
        end
      end,
    }
    """

  /// Runs `body` as the one test of a test file beside the feature; its failures.
  func run(delay: Double = 5, _ body: String) async throws -> [String] {
    let directory = try makeTemporaryDirectory("http-timeout")
    try Self.feature.write(
      to: directory.appendingPathComponent("slow.lua"), atomically: true, encoding: .utf8)
    let source = """
      local TestStore = require("composable.test").TestStore
      it("fetches", function()
        local store = TestStore.new{ feature = "slow", state = {},
          http = function() return { status = 200, body = "late", delay = \(delay) } end }
      \(body)
      end)
      """
    let results = await LuaTestRunner().run(
      source: source, name: "slow_test.lua", directory: directory)
    return results.flatMap { result -> [String] in
      if case let .failed(messages) = result.outcome { return messages }
      return []
    }
  }

  @Test func aDelayPastTheTimeoutFailsAtTheTimeout() async throws {
    let failures = try await run(
      """
        store:send({ type = "fetch", timeout = 2 })
        store:advance(1.999)
        store:advance(0.001)
        store:receive("fetched", function(s)
          s.ok = false
          s.error = "GET http://api.test/slow timed out after 2.0 seconds"
        end)
        store:finish()
      """)
    #expect(failures == [])
  }

  @Test func withNoTimeoutTheDefaultThirtySecondsHold() async throws {
    let failures = try await run(
      delay: 45,
      """
        store:send({ type = "fetch" })
        store:advance(30)
        store:receive("fetched", function(s)
          s.ok = false
          s.error = "GET http://api.test/slow timed out after 30.0 seconds"
        end)
        store:finish()
      """)
    #expect(failures == [])
  }

  @Test func aDelayWithinTheTimeoutAnswers() async throws {
    let failures = try await run(
      """
        store:send({ type = "fetch", timeout = 5 })
        store:advance(5)
        store:receive("fetched", function(s) s.ok = true s.body = "late" end)
        store:finish()
      """)
    #expect(failures == [])
  }
}
