import Clocks
import Composable
import ComposableLua
import LuaKit
import TestSupport
import Testing

@Suite struct LuaAsyncEffectTests {
  static let source = """
    local effect = require("composable.effect")
    return {
      initial_state = function() return { log = {} } end,
      reduce = function(state, action)
        local t = action.type
        if t == "log" then
          table.insert(state.log, action.text)
        elseif t == "count_down" then
          return effect.run(function(send)
            for i = 3, 1, -1 do
              send({ type = "log", text = tostring(i) })
              sleep(1)
            end
            send({ type = "log", text = "go" })
          end)
        elseif t == "fetch" then
          return effect.run(function(send)
            local response = http.get("http://numbers.test/" .. action.n)
            send({ type = "log", text = response.ok and response.body or ("failed: " .. response.error) })
          end)
        elseif t == "fetch_json" then
          return effect.http{ url = "http://numbers.test/json", response = "fetched" }
        elseif t == "fetched" then
          table.insert(state.log, action.ok and action.json.fact or action.error)
        elseif t == "search" then
          return effect.http{ url = "http://numbers.test/search", query = { q = "two words", page = 2 }, response = "fetched" }
        elseif t == "bad_json" then
          return effect.http{ url = "http://numbers.test/bad-json", response = "fetched" }
        elseif t == "deep_json" then
          return effect.http{ url = "http://numbers.test/deep-json", response = "fetched" }
        elseif t == "broken_run" then
          return effect.run(function(send) local x = nil; return x.y end)
        end
      end,
    }
    """

  static let server = HTTPClient { request in
    switch request.url {
    case "http://numbers.test/json":
      return HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], text: #"{"fact": "42 is the answer"}"#)
    case "http://numbers.test/7":
      return HTTPResponse(status: 200, text: "7 is lucky")
    case "http://numbers.test/search?page=2&q=two%20words":
      return HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], text: #"{"fact": "found"}"#)
    case "http://numbers.test/deep-json":
      return HTTPResponse(
        status: 200, headers: ["Content-Type": "application/json"],
        text: String(repeating: "[", count: 300) + String(repeating: "]", count: 300))
    case "http://numbers.test/bad-json":
      return HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], text: "{ oops")
    default:
      return HTTPResponse(status: 404, text: "not found")
    }
  }

  @Test func runSendsAndSleepsOnTheStoresClock() async throws {
    let clock = TestClock()
    let store = try testStore(Self.source) { $0.clock = clock }
    await store.send("count_down")
    await store.receive(["type": "log", "text": "3"]) { $0.log = ["3"] }
    await clock.advance(by: .seconds(1))
    await store.receive(["type": "log", "text": "2"]) { $0.log = ["3", "2"] }
    await clock.advance(by: .seconds(1))
    await store.receive(["type": "log", "text": "1"]) { $0.log = ["3", "2", "1"] }
    await clock.advance(by: .seconds(1))
    await store.receive(["type": "log", "text": "go"]) { $0.log = ["3", "2", "1", "go"] }
    await store.finish()
  }

  @Test func httpInsideRunReturnsTheResponse() async throws {
    let store = try testStore(Self.source) { $0.http = Self.server }
    await store.send(["type": "fetch", "n": 7])
    await store.receive(["type": "log", "text": "7 is lucky"]) { $0.log = ["7 is lucky"] }
    await store.send(["type": "fetch", "n": 8])
    await store.receive(["type": "log", "text": "failed: HTTP 404"]) { $0.log = ["7 is lucky", "failed: HTTP 404"] }
  }

  @Test func httpEffectsAnswerWithAnActionAndDecodedJSON() async throws {
    let store = try testStore(Self.source) { $0.http = Self.server }
    await store.send("fetch_json")
    await store.receive(where: { $0.type == "fetched" && $0.ok == true }) {
      $0.log = ["42 is the answer"]
    }
  }

  @Test func aQueryTableIsEncodedIntoTheURL() async throws {
    let store = try testStore(Self.source) { $0.http = Self.server }
    await store.send("search")
    await store.receive(where: { $0.type == "fetched" && $0.ok == true }) { $0.log = ["found"] }
  }

  @Test func invalidJSONArrivesAsAFailureAction() async throws {
    let store = try testStore(Self.source) { $0.http = Self.server }
    await store.send("bad_json")
    await store.receive(where: { $0.type == "fetched" && $0.ok == false && $0.status == 200 }) {
      $0.log = [
        .string(
          LuaString(
            "the body is not valid JSON: line 1, column 3: expected a string naming a field of "
              + "an object, got 'o'"))
      ]
    }
  }

  /// Valid JSON too deep for the feature is not called invalid: the decoder's reason is said.
  @Test func jsonTooDeepSaysSo() async throws {
    let store = try testStore(Self.source) { $0.http = Self.server }
    await store.send("deep_json")
    await store.receive(where: { $0.type == "fetched" && $0.ok == false }) {
      $0.log = [
        .string(
          LuaString(
            "the body's JSON could not be decoded: line 1, column 201: nested more than 200 "
              + "levels deep, got '['"))
      ]
    }
  }

  @Test func anErrorInsideRunIsReportedWithTheLine() async throws {
    let store = try testStore(Self.source, file: "async.lua")
    await withKnownIssue {
      await store.send("broken_run")
      await store.finish()
    } matching: { issue in
      message(of: issue).hasPrefix(
        #"an effect of { type = "broken_run" } failed: async.lua:32: attempt to index a nil value (local 'x')"#)
    }
  }

  @Test func anHTTPDependencyTheTestDidNotProvideIsNamed() async throws {
    let store = try testStore(Self.source)
    await withKnownIssue {
      await store.send("fetch_json")
      await store.receive(where: { $0.type == "fetched" }) { $0.log = ["http is not provided in this test"] }
    } matching: { issue in
      message(of: issue).hasPrefix(#"A test used "http" without providing it: GET http://numbers.test/json"#)
    }
  }

  @Test func theCounterFetchesItsFactOverHTTPWhenConfigured() async throws {
    let requests = Locked<[String]>([])
    let store = try TestStore(
      feature: example("counter/counter.lua"), env: ["fact_url": "http://facts.test/"]
    ) {
      $0.http = HTTPClient { request in
        requests.withLock { $0.append(request.url) }
        return HTTPResponse(status: 200, text: "0 is the loneliest number")
      }
    }
    await store.send("fact_button_tapped") { $0.is_loading = true }
    await store.receive(where: { $0.type == "fact_response" }) {
      $0.is_loading = nil
      $0.fact = "0 is the loneliest number"
    }
    #expect(requests.withLock { $0 } == ["http://facts.test/0"])
  }
}

@Suite struct LuaHTTPBodyTests {
  static let source = """
    local effect = require("composable.effect")
    local json = require("composable.json")
    return {
      initial_state = function() return {} end,
      reduce = function(state, action)
        if action.type == "post" then
          return effect.http{ url = "http://api.test/todos", method = "POST", body = { title = "milk", tags = {} }, response = "posted" }
        elseif action.type == "posted" then
          local j = action.json
          state.echo = { list = j.list, map = j.map, n = j.n, x = j.x, one = j.one }
          state.null_is_json_null = j.nothing == json.null
          state.one_is_float = math.type(j.one) == "float"
        end
      end,
    }
    """

  @Test func aTableBodyGoesAsJSONAndJSONComesBackByTheMarshallingRules() async throws {
    let store = try testStore(Self.source) {
      $0.http = HTTPClient { request in
        #expect(request.headers["Content-Type"] == "application/json")
        #expect(String(decoding: request.body ?? [], as: UTF8.self) == #"{"tags":{},"title":"milk"}"#)
        return HTTPResponse(
          status: 200, headers: ["Content-Type": "application/json"],
          text: #"{"nothing": null, "list": [], "map": {}, "n": 3, "x": 1.5, "one": 1.0}"#)
      }
    }
    await store.send("post")
    // `response.json` is `json.decode(response.body)`: null is json.null, 1.0 a float.
    await store.receive(where: { $0.type == "posted" }) {
      $0.echo = ["list": [], "map": [:], "n": 3, "x": 1.5, "one": 1.0]
      $0.null_is_json_null = true
      $0.one_is_float = true
    }
    let echo = store.state.echo
    #expect(echo.list.tableValue?.kind == .array)  // [] stays an array
    #expect(echo.map.tableValue?.kind == .map)  // {} stays a map
  }
}
