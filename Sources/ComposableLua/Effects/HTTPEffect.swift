import Composable
import Foundation
import IssueReporting
import LuaKit

/// `effect.http{ url = ..., response = "type" }`: an HTTP request, whose response arrives as
/// the action named `response`. Inside `effect.run`, `http.get(url)` and `http.request{...}`
/// make the same request and return the response. The request and response tables are
/// LuaHTTP's.
enum HTTPEffect: LuaEffectRequestKind {
  static let name = "http"
  static let fields = ["request", "wrappers"]

  /// What it is in Lua: its constructor in composable.effect, its LuaLS annotation and its
  /// row in docs/lua-api.md (scripts/generate-effect-kinds copies each there).
  static let lua = LuaEffectKindSource(
    constructor: """
      -- effect.http{ url = ..., method = "GET", headers = {}, body = "...", response = "type" }: the
      -- response arrives as { type = response, ok = true, status, headers, body, json } or
      -- { type = response, ok = false, error = "..." }.
      function effect.http(request)
        if type(request) ~= "table" then
          error("effect.http: expected a request table, got " .. type(request), 2)
        end
        return { kind = "http", request = request }
      end

      -- http.get(url) and http.request{...} inside effect.run: each returns the response table.
      effect.http_client = {
        request = function(request) return yield({ op = "http", request = request }) end,
        get = function(url, options)
          local request = { url = url, method = "GET" }
          for k, v in pairs(options or {}) do request[k] = v end
          return yield({ op = "http", request = request })
        end,
      }
      """,
    annotation: """
      ---@class HttpRequest
      ---@field url string
      ---@field method? string "GET" by default
      ---@field query? table<string, string|number|boolean> appended to the URL, percent-encoded
      ---@field headers? table<string, string>
      ---@field body? string|table a table is sent as JSON
      ---@field timeout? number seconds
      ---@field response? string the type of the action the response arrives as

      ---An HTTP request; the response arrives as the action named by `request.response`.
      ---@param request HttpRequest
      ---@return Effect
      function effect.http(request) end
      """,
    row:
      "| `effect.http(request)` | An HTTP request; the response arrives as the action named `request.response`. |"
  )
  static let hostCall = "http"
  static let testField = "http"

  static func effect(
    from table: LuaTable, at path: String, in interpreter: LuaEffectInterpreter
  ) throws(LuaFeatureError) -> LuaEffect {
    let request = table["request"]
    try interpreter.checkFields(
      of: request, allowed: LuaHTTP.requestFields, effect: "effect.http", at: path + ".request")
    let response = try interpreter.responseType(request, at: path)
    // Every check of the request, now: a bad URL or a body with no JSON form fails the action
    // that returned it, as a misspelt field does.
    let checked: HTTPRequest
    do throws(LuaError) {
      checked = try LuaHTTP.request(from: request, encodeJSON: interpreter.vm.jsonEncode)
    } catch {
      guard case let .conversion(field, message) = error else {
        throw interpreter.fail(path + ".request", error.message)
      }
      throw interpreter.fail(path + "." + field, "effect.http: \(message)")
    }
    let wrappers = try interpreter.wrappers(table["wrappers"], at: path + ".wrappers")
    let runner = interpreter.runner
    let run = LuaEffect.run { send in
      await runner.request(checked, responseType: response, wrappers: wrappers, send: send)
    }
    return try interpreter.held(run.named("http"), data: request, at: path)
  }

  static func answer(_ yielded: LuaValue, runner: LuaEffectRunner) async -> LuaValue? {
    await runner.perform(yielded["request"])
  }

  // MARK: Faked in a Lua test

  /// `http = function(request) return { status = 200, body = "..." } end`; `json = {...}`
  /// instead of `body` sends JSON, and `delay = seconds` answers after that long on the
  /// store's test clock (a request in flight, for tests of cancellation). A delay past the
  /// request's `timeout` (or the default 30 s) fails at the timeout, as the live client does.
  static func fake(
    _ value: LuaValue, in session: LuaTestSession, clock: ManualClock,
    into dependencies: inout DependencyValues
  ) throws {
    switch value {
    case .nil:
      dependencies.http = HTTPClient { request in
        reportIssue(
          """
          A test used "http" without providing it: \(request.method) \(request.url)

          To fix, give the TestStore an http function: \
          TestStore.new{ ..., http = function(request) return { status = 200, body = "..." } end }
          """)
        throw HTTPClientError("http is not provided in this test")
      }
    case let .function(answer):
      dependencies.http = HTTPClient { [queue = session.queue] request in
        var table = LuaTable()
        table["method"] = .string(LuaString(request.method))
        table["url"] = .string(LuaString(request.url))
        table["body"] = .string(LuaString(bytes: request.body ?? []))
        // `json = ...` is written as json.encode writes it: one JSON for Lua values.
        // A function that raises fails the request with its message, as a live client's error
        // reads: no traceback (a test written from a session raises the recorded error).
        let reply: LuaValue
        do {
          reply = try queue.access { vm, _ throws(LuaError) -> LuaValue in
            try vm.call(answer, .table(table)).first ?? .nil
          }
        } catch {
          // Raised: the request fails (how a test fakes a network's failure). An answer that is
          // no Lua data (a cycle, a function) is the test's mistake, as below.
          let message = (error as? LuaError)?.message ?? "\(error)"
          if case .conversion? = error as? LuaError {
            let said = "the test's http function answered with what is no data: \(message)"
            reportIssue(said)
            throw HTTPClientError(said)
          }
          throw HTTPClientError(message)
        }
        // An answer of a shape no server gives is the test's mistake, not the feature's: the
        // test fails at its line, and the request fails too (what the feature sees of an
        // answer it cannot be given).
        let json: String?
        do {
          try checkAnswer(reply)
          json =
            reply.json == .nil
            ? nil
            : try queue.access { vm, _ throws(LuaError) -> String in
              try vm.jsonEncode(reply.json)
            }
        } catch {
          let message =
            (error as? LuaError).map {
              "the test's http function answered with json that has no "
                + "JSON form: \($0.message)"
            } ?? "\(error)"
          reportIssue(message)
          throw HTTPClientError(message)
        }
        let timeout = request.timeout ?? HTTPRequest.defaultTimeout
        if isNever(reply.delay) {
          // Never answered: in flight until the effect is cancelled, or failed at its timeout.
          guard let limit = Seconds.duration(timeout) else {
            while true { try await clock.sleep(for: .seconds(1e9)) }
          }
          try await clock.sleep(for: limit)
          throw HTTPClientError.timedOut(request, after: timeout)
        }
        let status = reply.status.intValue ?? 200  // checked: an HTTP status
        var headers: [String: String] = [:]
        for (key, value) in reply.headers.tableValue?.entries ?? [:] {
          if let name = key.stringValue, let text = value.stringValue { headers[name] = text }
        }
        var body = reply.body.stringValue.map { Array($0.utf8) } ?? []
        if let json {
          body = Array(json.utf8)
          headers["Content-Type"] = headers["Content-Type"] ?? "application/json"
        }
        if reply.delay != .nil, let delay = reply.delay.doubleValue.flatMap(Seconds.duration) {
          if let limit = Seconds.duration(timeout), delay > limit {
            try await clock.sleep(for: limit)
            throw HTTPClientError.timedOut(request, after: timeout)
          }
          if delay > .zero { try await clock.sleep(for: delay) }  // 0: at once, not at an advance
        }
        return HTTPResponse(status: status, headers: headers, body: body)
      }
    default:
      throw LuaTestError("TestStore.new: http must be a function(request), got \(value.typeName)")
    }
  }

  /// The fields an answer of a test's http function takes: what comes back, and the request's
  /// method and url, which an answer may echo (the tests `:test` writes keep them in each).
  static let answerFields = ["body", "delay", "headers", "json", "method", "status", "url"]

  /// Whether an answer's `delay` is `math.huge`: the answer never comes (a session's request
  /// whose effect was cancelled before its answer came, as `:test` writes it).
  private static func isNever(_ delay: LuaValue) -> Bool {
    delay.doubleValue == .infinity
  }

  /// Fails the request when the answer of a test's http function has a field it does not take
  /// (`jsn = {...}` was an empty body: the feature then failed on a missing field, with no hint
  /// of the typo), a body that is no string, or headers that are not names to values.
  private static func checkAnswer(_ reply: LuaValue) throws(HTTPClientError) {
    guard let table = reply.tableValue else {
      throw HTTPClientError(
        "the test's http function answered with \(LuaValue.describeForMessage(reply)): it answers "
          + "with { status = ..., body = ... }, or raises to fail the request")
    }
    for key in table.sortedEntries.map(\.key) {
      guard let name = key.stringValue, answerFields.contains(name) else {
        let near = key.stringValue.flatMap { NearestName.nearest(to: $0, among: answerFields) }
        throw HTTPClientError(
          "the test's http function answered with a field \(key.namedInMessage) "
            + "it does not take\(near.map { " (did you mean \($0)?)" } ?? ""); an answer's fields "
            + "are \(answerFields.joined(separator: ", "))")
      }
    }
    if isNever(reply.delay) { return }  // nothing of it is given
    guard let status = reply.status.intValue, (100...599).contains(status) else {
      throw HTTPClientError(
        "the test's http function answered with status "
          + (reply.status == .nil ? "missing" : reply.status.description(limit: 80))
          + ": it is an HTTP status, an integer from 100 to 599 (200 for OK)")
    }
    if reply.delay != .nil, reply.delay.doubleValue.flatMap(Seconds.duration) == nil {
      throw HTTPClientError(
        "the test's http function answered with delay \(reply.delay.description(limit: 80)): "
          + "expected \(Seconds.expected)")
    }
    for field in ["method", "url"] where table[field] != .nil && table[field].stringValue == nil {
      throw HTTPClientError(
        "the test's http function answered with \(field) = \(table[field].description(limit: 80)): "
          + "an answer echoes the request's \(field), a string")
    }
    if reply.body != .nil, reply.body.stringValue == nil {
      throw HTTPClientError(
        "the test's http function answered with a body that is \(reply.body.typeName): a body is "
          + "a string (json = ... for a table sent as JSON)")
    }
    if reply.body != .nil, reply.json != .nil {
      throw HTTPClientError(
        "the test's http function answered with both body and json: an answer gives one")
    }
    guard reply.headers != .nil else { return }
    let headers = reply.headers.tableValue?.entries
    // A header is one line: a name (none empty) and a value, neither holding CR or LF.
    func isLine(_ text: String?) -> Bool {
      text.map { !$0.utf8.contains(10) && !$0.utf8.contains(13) } ?? false
    }
    guard let headers,
      headers.allSatisfy({
        isLine($0.key.stringValue) && $0.key.stringValue != "" && isLine($0.value.stringValue)
      })
    else {
      throw HTTPClientError(
        "the test's http function answered with headers that are not names and values "
          + "(strings, each a line, a name not empty): \(reply.headers.description(limit: 80))")
    }
  }

  // MARK: Recorded in a session

  /// Each request as `{ method, url, body }`, its answer as `{ status, headers, body }`.
  static func recording(
    _ dependencies: DependencyValues, into recorder: LuaExchangeRecorder
  ) -> DependencyValues {
    var recording = dependencies
    let http = dependencies.http
    recording.http = HTTPClient { request in
      let start = recorder.begin()
      var asked = LuaTable()
      asked["method"] = .string(LuaString(request.method))
      asked["url"] = .string(LuaString(request.url))
      asked["body"] = .string(LuaString(bytes: request.body ?? []))
      do {
        let response = try await http.perform(request)
        var answer = LuaTable()
        answer["status"] = .integer(response.status)
        answer["body"] = .string(LuaString(bytes: response.body))
        var headers = LuaTable()
        for (name, value) in response.headers { headers[name] = .string(LuaString(value)) }
        answer["headers"] = .table(headers)
        // An answer that comes once the effect is cancelled is not taken (`perform` drops it):
        // noted as never given, or a test written from the session would send what it sent.
        let cancelled = Task.isCancelled
        recorder.note(
          name, .table(asked), cancelled ? .nil : .table(answer), nil, cancelled, start,
          recorder.now())
        return response
      } catch {
        let cancelled = Task.isCancelled || error is CancellationError
        recorder.note(
          name, .table(asked), .nil, cancelled ? nil : "\(error)", cancelled, start,
          recorder.now())
        throw error
      }
    }
    return recording
  }
}

// MARK: Performed

extension LuaEffectRunner {
  /// `effect.http`: performs the request and sends the response as the `response` action.
  func request(
    _ request: HTTPRequest, responseType: String, wrappers: [LuaReference], send: Send<LuaValue>
  ) async {
    guard var response = await perform(request) else { return }
    response["type"] = .string(LuaString(responseType))
    do { await send(try feature.wrap(response, with: wrappers)) } catch {
      fail(error)
    }
  }

  /// The response to the request table of `http.get`/`http.request` inside `effect.run` as a
  /// Lua table, or nil when the effect was cancelled; a request that cannot be made answers
  /// `ok = false`, naming the field.
  func perform(_ value: LuaValue) async -> LuaValue? {
    let request: HTTPRequest
    do { request = try LuaHTTP.request(from: value, encodeJSON: feature.encodeJSON) } catch {
      return ["ok": false, "error": .string(LuaString(error.description))]
    }
    return await perform(request)
  }

  /// The response to `request` as a Lua table, or nil when the effect was cancelled.
  func perform(_ request: HTTPRequest) async -> LuaValue? {
    do {
      let response = try await LuaExchangeRecorder.$origin.withValue(origin) {
        try await http.perform(request)
      }
      if Task.isCancelled { return nil }
      return LuaHTTP.table(of: response, decodeJSON: feature.decodeJSON)
    } catch {
      if Task.isCancelled || error is CancellationError { return nil }
      return ["ok": false, "error": .string(LuaString("\(error)"))]
    }
  }
}
