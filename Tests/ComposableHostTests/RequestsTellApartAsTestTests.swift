import Composable
import ComposableLua
import Foundation
import LocalServer
import LuaKit
import TestSupport
import Testing

@testable import ComposableHost

/// `:test` of a session whose requests share a method and URL: each answer goes to the request
/// it answered in the session, told apart by what the request sent and by the order the
/// requests were made. Before, answers were served to the first request of the same method and
/// URL in the order they came back, so a slow POST made first got the answer of a fast one
/// made after it, and the test failed as written (an attacker's finding).
@Suite struct RequestsTellApartAsTestTests {
  typealias Harness = ReplSessionTests.Harness

  static let source = """
    local effect = require("composable.effect")
    local Posts = {}
    Posts.actions = { "post" }
    function Posts.initial_state() return { got = {} } end
    function Posts.reduce(state, action, env)
      if action.type == "post" then
        return effect.http{
          url = env.url .. "/echo", method = "POST", body = action.body, timeout = 600,
          response = "posted_" .. action.tag,
        }
      elseif action.type:sub(1, 7) == "posted_" then
        -- Which request the answer is for, by its action's name.
        table.insert(state.got, action.type:sub(8) .. ": " .. action.body)
      end
    end
    return Posts
    """

  /// A server that echoes what it is sent: a request whose body says "slow" is answered only
  /// when the test releases it, once the session has received the answers to the others, so
  /// that it comes back last however loaded the machine is; any other at once. (The feature's
  /// requests wait 600 s: at the default 30, one timed out in a full run on two cores.)
  static func server(release: DispatchSemaphore) throws -> LocalHTTPServer {
    try LocalHTTPServer { request in
      let body = String(decoding: request.body, as: UTF8.self)
      if body.hasPrefix("slow") { _ = release.wait(timeout: .now() + 300) }
      return .text("echo " + body)
    }
  }

  /// Sends `lines`, waits until `replies` answers came back, the last one once the others have
  /// (`release` lets it go then), writes the session as a Lua test and runs it; what `:test`
  /// said, and the test's text.
  static func session(
    _ lines: [String], replies: Int, server: LocalHTTPServer, release: DispatchSemaphore
  ) async throws -> (repl: Harness, said: String, text: String) {
    // A clock that runs, as a session's does unless `--paused`: the answers' delays are kept,
    // so the test gives them in the order they came (paused, each took no time on its clock).
    let repl = try Harness(
      source: source, env: ["url": .string(LuaString(server.url))],
      clock: ReplClock(paused: false))
    for line in lines { await repl.type(line) }
    for count in [lines.count + replies - 1, lines.count + replies] {
      try await waitWhile { repl.session.timeline.count < count }
      await repl.session.settle()
      try #require(repl.session.timeline.count == count)
      release.signal()
    }
    let test = repl.file.deletingLastPathComponent().appendingPathComponent("posts_test.lua")
    let said = await repl.type(":test \(test.path)").0
    return (repl, said, try String(contentsOf: test, encoding: .utf8))
  }

  /// A slow POST made first and a fast one after it, both answered; the caller stops the server.
  static func slowThenFast() async throws -> (Harness, String, String, LocalHTTPServer) {
    let release = DispatchSemaphore(value: 0)
    let server = try Self.server(release: release)
    let (repl, said, text) = try await Self.session(
      [
        #"{ type = "post", body = "slow one", tag = "a" }"#,
        #"{ type = "post", body = "fast one", tag = "b" }"#,
      ], replies: 2, server: server, release: release)
    return (repl, said, text, server)
  }

  @Test func aSlowRequestMadeFirstGetsItsOwnAnswer() async throws {
    let (repl, said, text, server) = try await Self.slowThenFast()
    defer { server.stop() }
    #expect(
      try repl.session.feature.evaluate("state.got[1], state.got[2]")
        == ["b: echo fast one", "a: echo slow one"])
    #expect(said.contains(": 2 sent, 2 received; it passes (composable test "), "\(said)\n\(text)")
    #expect(text.contains(#"request_body = "slow one","#), "\(text)")
    // Made first, listed first.
    let slow = try #require(text.range(of: #"request_body = "slow one""#))
    let fast = try #require(text.range(of: #"request_body = "fast one""#))
    #expect(slow.lowerBound < fast.lowerBound)
  }

  /// Requests alike in everything (method, URL, body) are answered in the order they were made:
  /// the test gives the first one the answer that took longest.
  @Test func requestsAlikeAreAnsweredInTheOrderTheyWereMade() async throws {
    // The first request is answered when the test releases it, once the second's answer came.
    let release = DispatchSemaphore(value: 0)
    let first = Locked(true)
    let server = try LocalHTTPServer { _ in
      let isFirst = first.withLock { value in
        defer { value = false }
        return value
      }
      guard isFirst else { return .text("second") }
      _ = release.wait(timeout: .now() + 300)
      return .text("first")
    }
    defer { server.stop() }
    let (repl, said, text) = try await Self.session(
      [#"{ type = "post", body = "same", tag = "a" }"#, #"{ type = "post", body = "same", tag = "b" }"#],
      replies: 2, server: server, release: release)
    #expect(try repl.session.feature.evaluate("state.got[1]") == ["b: second"])
    #expect(said.contains("; it passes (composable test "), "\(said)\n\(text)")
  }

  /// The Swift test tells them apart too: each answer carries the body its request sent.
  @Test func theSwiftTestMatchesTheBodyToo() async throws {
    let (repl, _, _, server) = try await Self.slowThenFast()
    defer { server.stop() }
    let swift = try await repl.swiftTest(named: "PostsSessionTests")
    let slow = try #require(swift.range(of: #"("POST", "\#(server.url)/echo", Array("slow one".utf8), "#))
    let fast = try #require(swift.range(of: #"("POST", "\#(server.url)/echo", Array("fast one".utf8), "#))
    #expect(slow.lowerBound < fast.lowerBound, "\(swift)")
    #expect(swift.contains("$0.2 == (request.body ?? [])"), "\(swift)")
  }
}
