import Composable
import ComposableLua
import LuaKit
import TestSupport
import Testing

/// A request a feature returns is checked whole when the reducer returns it, as a misspelt
/// field is: one with CR or LF in its method or headers (request splitting is not a typo the
/// wire should see), or a body with no JSON form, fails the action that returned it, naming
/// the field, and never reaches a client.
@Suite struct HTTPRequestValidationTests {
  /// Sends `go` to a feature whose reducer returns `effect.http{ url = "http://x.test/",
  /// <fields>, response = "done" }`; expects the action to fail with `message` and nothing sent.
  func expectRefused(fields: String, message: String) async throws {
    let sent = Locked(0)
    let store = try testStore("""
      local effect = require("composable.effect")
      return {
        initial_state = function() return { n = 0 } end,
        reduce = function(state, action)
          state.n = state.n + 1
          return effect.http{ url = "http://x.test/", \(fields), response = "done" }
        end,
      }
      """) {
      $0.http = HTTPClient { _ in
        sent.withLock { $0 += 1 }
        return HTTPResponse(status: 200)
      }
    }
    await withKnownIssue {
      await store.send("go")  // rolled back: no state change to assert
    } matching: { issue in
      "\(issue)".contains(message)
    }
    #expect(sent.withLock { $0 } == 0)
  }

  @Test func aHeaderWithCRLFFailsTheAction() async throws {
    try await expectRefused(
      fields: #"headers = { ["X-A"] = "1\r\nX-B: 2" }"#,
      message: "effect.request: effect.http: header X-A: the value holds CR, LF or NUL")
  }

  /// Each header that frames the message or the connection, in any case: a Content-Length
  /// shorter than the body made its rest a second request on the connection (smuggling), and
  /// each answer after it went to the request before.
  @Test(arguments: [
    "Content-Length", "content-length", "CONTENT-LENGTH", "Transfer-Encoding", "Connection",
    "Keep-Alive", "Upgrade", "TE", "Trailer", "Proxy-Connection",
  ])
  func aHeaderThatFramesTheMessageFailsTheAction(name: String) async throws {
    try await expectRefused(
      fields: #"method = "POST", body = "x", headers = { [""# + name + #""] = "5" }"#,
      message: "effect.request: effect.http: header \(name) is set by the client (it frames the "
        + "message or the connection); remove it")
  }

  /// A URL with a NUL was cut there (what was sent was not what messages named); a space, a
  /// tab, CR, LF or DEL is no part of a URL either.
  @Test(arguments: [#"/a\0.evil/x"#, "/a b", #"/a\tb"#, #"/a\rb"#, #"/a\nb"#, #"/a\127b"#])
  func aURLWithASpaceOrAControlCharacterFailsTheAction(path: String) async throws {
    try await expectRefused(
      fields: #"url = "http://x.test"# + path + #"""#,
      message: "holds a space or a control character; percent-encode it (%20 for a space)")
  }

  /// A field of another type was taken as absent: `method = 5` sent a GET, `headers = "..."`
  /// sent no header at all.
  @Test(arguments: [
    ("method = 5", "request.method: effect.http: expected a string, got integer"),
    ("method = true", "request.method: effect.http: expected a string, got boolean"),
    (#"headers = "X-Key: 1""#, "request.headers: effect.http: expected a table, got string"),
    (#"query = "a=b""#, "request.query: effect.http: expected a table, got string"),
  ])
  func aFieldOfAnotherTypeFailsTheAction(fields: String, message: String) async throws {
    try await expectRefused(fields: fields, message: message)
  }

  @Test func aBodyWithNoJSONFormFailsTheAction() async throws {
    try await expectRefused(
      fields: "body = { bad = 0/0 }",
      message:
        "effect.request.body: effect.http: cannot be sent as JSON: json.encode: bad: NaN has no "
        + "JSON form")
  }

  /// A URL the client could not request (no scheme, another scheme) fails the action that
  /// returned it, at the reducer's return: its change is rolled back, the error names the field.
  @Test(arguments: ["example.com/search", "file:///etc/hostname", ""])
  func aBadURLFailsTheActionAndRollsItBack(url: String) async throws {
    let sent = Locked(0)
    let store = try testStore(
      """
      local effect = require("composable.effect")
      return {
        initial_state = function() return { n = 0 } end,
        reduce = function(state, action)
          state.n = state.n + 1
          return effect.http{ url = \(LuaValue.string(LuaString(url))), response = "done" }
        end,
      }
      """
    ) {
      $0.http = HTTPClient { _ in
        sent.withLock { $0 += 1 }
        return HTTPResponse(status: 200)
      }
    }
    await withKnownIssue {
      await store.send("go")  // rolled back: no state change to assert
    } matching: { issue in
      "\(issue)".contains(
        "effect.request.url: effect.http: \(LuaValue.string(LuaString(url))) is not an http or "
          + "https URL")
    }
    #expect(store.state == ["n": 0])
    #expect(sent.withLock { $0 } == 0)
  }

  /// Inside `effect.run`, the same URL answers `ok = false`, naming the field, and never
  /// reaches the client.
  @Test func aBadURLInsideRunAnswersNotOK() async throws {
    let sent = Locked(0)
    let store = try testStore(
      """
      local effect = require("composable.effect")
      return {
        initial_state = function() return { error = "" } end,
        reduce = function(state, action)
          if action.type == "failed" then state.error = action.error return end
          return effect.run(function(send)
            local response = http.get("example.com")
            send({ type = "failed", error = response.error })
          end)
        end,
      }
      """
    ) {
      $0.http = HTTPClient { _ in
        sent.withLock { $0 += 1 }
        return HTTPResponse(status: 200)
      }
    }
    await store.send("go")
    await store.receive(
      ["type": "failed", "error": #"request.url: "example.com" is not an http or https URL"#]
    ) {
      $0 = ["error": #"request.url: "example.com" is not an http or https URL"#]
    }
    #expect(sent.withLock { $0 } == 0)
  }
}
