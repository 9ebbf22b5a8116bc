import Composable
import ComposableLua
import Foundation
import LocalServer
import LuaKit
import TestSupport
import Testing

@testable import ComposableHost

/// `:test` of a session whose HTTP request was cancelled before its answer came (by
/// `effect.cancel`, or by a jump): the effect sent nothing in the session, so the test keeps
/// the request in flight (`delay = 1/0`) until it cancels the effect too, and passes. It was
/// written answering at once with the error `CancellationError()`, which the effect then sent
/// back as an action the session never received: a test that failed as written (a new user's
/// finding, with a screen popped during its request).
@Suite struct CancelledRequestsAsTestTests {
  typealias Harness = ReplSessionTests.Harness

  static let source = """
    local effect = require("composable.effect")
    local Loads = {}
    function Loads.initial_state() return { got = {}, loading = false } end
    function Loads.reduce(state, action, env)
      if action.type == "slow" or action.type == "fast" then
        state.loading = true
        local request = effect.http{
          url = env.url .. "/" .. action.type, response = "loaded", timeout = action.timeout,
        }
        return effect.cancellable(request, "load")
      elseif action.type == "stop" then
        state.loading = false
        return effect.cancel("load")
      elseif action.type == "loaded" then
        state.loading = false
        table.insert(state.got, action.ok and action.body or action.error)
      end
    end
    return Loads
    """

  /// A server that answers `/fast` at once and `/slow` after ten minutes, when its client has
  /// not gone (the session cancels it long before; its request's timeout is as long, so that a
  /// session slowed down by a loaded machine does not see it time out first).
  static func server() throws -> LocalHTTPServer {
    try LocalHTTPServer { request in
      request.path == "/fast" ? .text("fast") : .text("slow", delay: 600)
    }
  }

  static let slow = #"{ type = "slow", timeout = 600 }"#

  /// Waits (at most 300 s: a loaded machine) until the session has noted `count` exchanges.
  static func waitForExchanges(_ count: Int, in repl: Harness) async throws {
    try await waitWhile { repl.session.exchanges.all.count < count }
    await repl.session.settle()
    try #require(repl.session.exchanges.all.count == count)
  }

  /// Writes the session as a Lua test, runs it, and returns what `:test` said and its text.
  static func writeTest(_ repl: Harness) async throws -> (said: String, text: String) {
    let test = repl.file.deletingLastPathComponent().appendingPathComponent("loads_test.lua")
    let said = await repl.type(":test \(test.path)").0
    return (said, try String(contentsOf: test, encoding: .utf8))
  }

  @Test func aRequestCancelledByAnActionStaysInFlightInTheTest() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let repl = try Harness(source: Self.source, env: ["url": .string(LuaString(server.url))])
    await repl.type(Self.slow)
    try await waitWhile { server.received.isEmpty }
    await repl.type("stop")
    try await Self.waitForExchanges(1, in: repl)
    #expect(repl.session.exchanges.all.first?.cancelled == true)
    #expect(repl.session.exchanges.all.first?.error == nil)
    // A request answered after it, served as recorded.
    await repl.type("fast")
    try await Self.waitForExchanges(2, in: repl)
    try await waitWhile { repl.session.timeline.count < 4 }
    #expect(try repl.session.feature.evaluate("state.got[1], #state.got") == ["fast", 1])
    let (said, text) = try await Self.writeTest(repl)
    #expect(said.contains(": 3 sent, 1 received; it passes (composable test "), "\(said)\n\(text)")
    #expect(text.contains("delay = 1/0,"), "\(text)")
    #expect(text.contains("-- delay = 1/0 (math.huge): its effect was cancelled"), "\(text)")
    #expect(!text.contains("CancellationError"), "\(text)")
    // The Swift test keeps it in flight too: its answer comes after the longest sleep.
    let swift = try await repl.swiftTest(named: "LoadsSessionTests")
    #expect(
      swift.contains(
        #".failure(HTTPClientError("never answered: cancelled in the session")), \#(Int.max)),"#),
      "\(swift)")
  }

  @Test func aRequestCancelledByAJumpStaysInFlightInTheTest() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let repl = try Harness(source: Self.source, env: ["url": .string(LuaString(server.url))])
    await repl.type("fast")
    try await Self.waitForExchanges(1, in: repl)
    await repl.type(Self.slow)
    try await waitWhile { server.received.count < 2 }
    await repl.type(":undo")
    try await Self.waitForExchanges(2, in: repl)
    let (said, text) = try await Self.writeTest(repl)
    #expect(said.contains("; it passes (composable test "), "\(said)\n\(text)")
    #expect(!text.contains("CancellationError"), "\(text)")
  }

  /// A test's answer with `delay = math.huge` is never given: the request stays in flight
  /// (the test's `finish` says so), fails at its timeout if the test goes past it, and is
  /// cancelled with its effect.
  @Test func aNeverAnswerKeepsTheRequestInFlightUntilItsTimeout() async throws {
    let directory = try makeTemporaryDirectory("never")
    try Self.source.write(
      to: directory.appendingPathComponent("loads.lua"), atomically: true, encoding: .utf8)
    let test = directory.appendingPathComponent("never_test.lua")
    try """
      local TestStore = require("composable.test").TestStore
      local function store()
        return TestStore.new{
          feature = "loads", env = { url = "http://example.test" },
          http = function(request)
            return { method = request.method, url = request.url, delay = math.huge }
          end,
        }
      end
      describe("never", function()
        it("is cancelled with its effect", function()
          local s = store()
          s:send("slow", function(state) state.loading = true end)
          s:advance(29)
          s:send("stop", function(state) state.loading = false end)
          s:finish()
        end)
        it("fails at its timeout", function()
          local s = store()
          s:send("slow", function(state) state.loading = true end)
          s:advance(30)
          s:receive("loaded", function(state)
            state.loading = false
            state.got[1] = "GET http://example.test/slow timed out after 30.0 seconds"
          end)
          s:finish()
        end)
      end)
      """.write(to: test, atomically: true, encoding: .utf8)
    let results = await LuaTestRunner().run(file: test)
    #expect(results.map(\.outcome) == [.passed, .passed], "\(results)")
  }

  /// The requests of actions a jump took back are not the test's: a new branch's request got
  /// the answer (or the never-answer) of the undone one it was alike to, and the test failed
  /// on its own session (an attacker's finding).
  @Test func requestsOfActionsTakenBackAreLeftOut() async throws {
    let count = Locked(0)
    let server = try LocalHTTPServer { request in
      let n = count.withLock { value in
        value += 1
        return value
      }
      // The first /slow is never answered (the session undoes it); every other at once.
      if request.path == "/slow", n == 1 { return .text("never", delay: 600) }
      return .text("\(request.path) \(n)")
    }
    defer { server.stop() }
    let repl = try Harness(source: Self.source, env: ["url": .string(LuaString(server.url))])
    await repl.type(Self.slow)
    try await waitWhile { server.received.isEmpty }
    await repl.type(":undo")
    try await Self.waitForExchanges(1, in: repl)
    await repl.type(Self.slow)  // alike: answered at once
    try await waitWhile { repl.session.timeline.count < 2 }
    // Answered, then taken back by a jump, and made again: the second answer is the test's.
    await repl.type(":goto 0", "fast")
    try await waitWhile { repl.session.timeline.count < 2 }
    await repl.type(":goto 0", "fast")
    try await waitWhile { repl.session.timeline.count < 2 }
    await repl.session.settle()
    #expect(try repl.session.feature.evaluate("state.got[1]") == ["/fast 4"])
    let (said, text) = try await Self.writeTest(repl)
    #expect(said.contains(": 1 sent, 1 received; it passes (composable test "), "\(said)\n\(text)")
    #expect(text.components(separatedBy: #"method = "GET""#).count == 2, "\(text)")
    #expect(!text.contains("delay = 1/0") && !text.contains("/fast 3"), "\(text)")
  }

  /// A coroutine's later request, made after an action a jump took back, goes with that
  /// action: a new branch's alike request got its answer, and the test failed on its session
  /// (an attacker's finding: the request was counted as the coroutine's first action's).
  @Test func aCoroutinesLaterRequestGoesWithTheTimeItWasMadeIn() async throws {
    let count = Locked(0)
    let server = try LocalHTTPServer { request in
      let n = count.withLock { value in
        value += 1
        return value
      }
      return .text("\(request.path) \(n)")
    }
    defer { server.stop() }
    let source = """
      local effect = require("composable.effect")
      local F = {}
      F.actions = { "go", "got", "fetch" }
      function F.initial_state() return { got = {} } end
      function F.reduce(state, action, env)
        if action.type == "go" then
          return effect.run(function(send)
            send({ type = "got", body = http.get(env.url .. "/a").body })
            send({ type = "got", body = http.get(env.url .. "/b").body })
          end)
        elseif action.type == "fetch" then
          return effect.http{ url = env.url .. "/b", response = "got" }
        elseif action.type == "got" then
          table.insert(state.got, action.body)
        end
      end
      return F
      """
    // A clock that runs: in the test, as in the session, the coroutine waits for its first
    // answer's time, and the jump stops it there before its second request (paused, each took
    // no time, and the test's coroutine went on to reduce what the session undid: no test can).
    let repl = try Harness(
      source: source, env: ["url": .string(LuaString(server.url))],
      clock: ReplClock(paused: false))
    await repl.type("go")
    try await waitWhile { repl.session.timeline.count < 3 }
    await repl.type(":goto 1", "fetch")
    try await waitWhile { repl.session.timeline.count < 3 }
    await repl.session.settle()
    #expect(try repl.session.feature.evaluate("state.got[1]") == ["/b 3"])
    let (said, text) = try await Self.writeTest(repl)
    #expect(said.contains("; it passes (composable test "), "\(said)\n\(text)")
    #expect(!text.contains(#""/b 2""#), "\(text)")
  }
}

/// Waits (at most 300 s: a loaded machine) while `condition` holds.
func waitWhile(_ condition: () -> Bool) async throws {
  for _ in 0..<30000 where condition() { try await Task.sleep(for: .milliseconds(10)) }
}

extension ReplSessionTests.Harness {
  /// The session as a Swift test (`SwiftTestWriter`), named `name`, not run.
  func swiftTest(named name: String) async throws -> String {
    let plan = try SessionTestPlan(
      recording: await session.recording(), exchanges: session.exchanges.all,
      feature: file, inFlight: [])
    return try SwiftTestWriter.text(
      plan, name: name,
      testFile: file.deletingLastPathComponent().appendingPathComponent("\(name).swift"))
  }
}
