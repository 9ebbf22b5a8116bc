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
  /// tab, CR, LF or DEL is no part of a URL either, nor a C1 control (U+0080-U+009F, which a
  /// terminal may obey in a message).
  @Test(arguments: [
    #"/a\0.evil/x"#, "/a b", #"/a\tb"#, #"/a\rb"#, #"/a\nb"#, #"/a\127b"#, #"/a\u{9B}31mb"#,
    #"/\u{80}"#, #"/\u{9F}"#,
  ])
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

  /// Bytes that are not UTF-8 in a URL, a method or a header: "expected a string, got
  /// string", and a method of them was taken as absent (a GET went).
  @Test(arguments: [
    (#"url = "http://x.test/\255""#, #"request.url: effect.http: "http://x.test/\255" is not "#
      + "UTF-8 text (byte 15 is 0xFF); percent-encode bytes in a URL (%FF)"),
    (#"method = "P\192UT""#, #"request.method: effect.http: "P\192UT" is not UTF-8 text "#
      + "(byte 2 is 0xC0)"),
    (#"headers = { ["X-A"] = "caf\233" }"#, #"request.headers.X-A: effect.http: "caf\233" is "#
      + "not UTF-8 text (byte 4 is 0xE9)"),
    (#"headers = { ["X-\255"] = "1" }"#, #"request.headers: effect.http: "X-\255" is not "#
      + "UTF-8 text (byte 3 is 0xFF)"),
  ])
  func textThatIsNotUTF8FailsTheAction(fields: String, message: String) async throws {
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

/// `query = { ... }` goes byte for byte: each name and value percent-encoded but for the
/// unreserved bytes, after a query the URL has. Values went as Lua literals (`\255` for a byte
/// that is not UTF-8, `0/0` for NaN), and a `+` went as itself (a space, to most servers).
@Suite struct HTTPQueryTests {
  static let source = """
    local effect = require("composable.effect")
    return {
      initial_state = function() return {} end,
      reduce = function(state, action)
        if action.type == "go" then
          return effect.http{ url = action.url, query = action.query, response = "done" }
        end
      end,
    }
    """

  /// The URL the client was given for `query` appended to `url`.
  func sent(_ url: String, _ query: LuaValue) async throws -> String? {
    let urls = Locked<[String]>([])
    let store = try testStore(Self.source) {
      $0.http = HTTPClient { request in
        urls.withLock { $0.append(request.url) }
        return HTTPResponse(status: 200)
      }
    }
    store.exhaustivity = .off  // the answers are not the point
    await store.send(["type": "go", "url": .string(LuaString(url)), "query": query])
    await store.finish()
    return urls.withLock { $0.last }
  }

  @Test func namesAndValuesGoByteForByte() async throws {
    let base = "http://x.test/p"
    #expect(
      try await sent(base, ["a b": "x+y&z=1/?#"]) == base + "?a%20b=x%2By%26z%3D1%2F%3F%23")
    #expect(
      try await sent(base, ["b": .string(LuaString(bytes: [0xFF, 0x00, 0x41, 0xC3, 0xA9]))])
        == base + "?b=%FF%00A%C3%A9")
    #expect(
      try await sent(
        base,
        ["i": .integer(3), "f": .number(2.5), "w": .number(3), "t": true, "n": .integer(-1),
          "e": .number(1e300)])
        == base + "?e=1e%2B300&f=2.5&i=3&n=-1&t=true&w=3.0")
    // As `tostring` writes them (the Lua-literal printer gave `math.mininteger`,
    // `0.30000000000000004`, `1000000000000000.0`).
    #expect(
      try await sent(
        base,
        ["a": .number(0.1 + 0.2), "b": .number(1e15), "c": .number(0x1p63),
          "d": .integer(.min), "e": .number(-0.0)])
        == base + "?a=0.3&b=1e%2B15&c=9.2233720368548e%2B18&d=-9223372036854775808&e=-0.0")
    // After the URL's own query, left as written.
    #expect(try await sent(base + "?x=a+b", ["q": "1"]) == base + "?x=a+b&q=1")
    #expect(try await sent(base + "?", ["q": "1"]) == base + "?q=1")
    #expect(try await sent(base + "?x=1&", ["q": "1"]) == base + "?x=1&q=1")
    #expect(try await sent(base, [:]) == base)
    // Before a fragment.
    #expect(try await sent(base + "?x=1#top", ["q": "1"]) == base + "?x=1&q=1#top")
  }

  /// NaN and the infinities have no decimal form a server reads: the action fails, naming the
  /// field, as a body refuses them.
  @Test(arguments: [Double.nan, .infinity, -.infinity])
  func aNumberWithNoDecimalFormFailsTheAction(number: Double) async throws {
    let urls = Locked(0)
    let store = try testStore(Self.source) {
      $0.http = HTTPClient { _ in
        urls.withLock { $0 += 1 }
        return HTTPResponse(status: 200)
      }
    }
    await withKnownIssue {
      await store.send(["type": "go", "url": "http://x.test/", "query": ["q": .number(number)]])
    } matching: { issue in
      "\(issue)".contains("request.query.q: effect.http: ")
        && "\(issue)".contains(" has no decimal form a server reads; send a finite number, or a string")
    }
    #expect(urls.withLock { $0 } == 0)
  }
}
