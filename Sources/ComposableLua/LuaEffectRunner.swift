import Composable
import Foundation
import LuaKit

/// Runs the async effects of a Lua feature: `effect.run` coroutines, whose `send`, `sleep` and
/// `http` calls yield here, and `effect.http` requests. Results go back as actions; failures
/// too (`ok = false`), or, for an error in the coroutine's own code, as a reported error.
struct LuaEffectRunner: Sendable {
  let feature: LuaFeature
  let clock: any Clock<Duration>
  let http: HTTPClient
  let files: FileClient
  let onError: @Sendable (LuaFeatureError) -> Void
  /// The action whose reducer returned the effect, for messages.
  let origin: LuaValue

  private func fail(_ error: LuaError) {
    onError(.effect(action: ((try? LuaAction.normalize(origin)) ?? origin).description, error: error))
  }

  /// Drives the coroutine of `body` until it returns, fails, or the effect is cancelled.
  func run(_ body: LuaReference, wrappers: [LuaReference], send: Send<LuaValue>) async {
    let coroutine: LuaReference
    do { coroutine = try feature.makeCoroutine(body) } catch {
      onError(error)
      return
    }
    var arguments: [LuaValue] = []
    while !Task.isCancelled {
      let resumption: LuaResumption
      do { resumption = try feature.resume(coroutine, with: arguments) } catch {
        fail(error)
        return
      }
      guard case let .yielded(values) = resumption else { return }
      let request = values.first ?? .nil
      arguments = []
      switch request["op"].stringValue {
      case "send":
        do {
          let action = try LuaAction.normalize(request["action"])
          await send(try feature.wrap(action, with: wrappers))
        } catch let error as LuaAction.Malformed {
          fail(.conversion(path: "send(action)", message: error.message))
          return
        } catch {
          fail(error as? LuaError ?? .runtime(message: "\(error)", traceback: ""))
          return
        }
      case "sleep":
        guard let duration = request["seconds"].doubleValue.flatMap(Seconds.duration) else {
          fail(.conversion(
            path: "sleep(seconds)",
            message: "expected \(Seconds.expected), got \(Self.describe(request["seconds"]))"))
          return
        }
        do { try await clock.sleep(for: duration) } catch {
          return  // cancelled
        }
      case "http":
        guard let response = await perform(request["request"]) else { return }
        arguments = [response]
      case "file":
        guard let result = await file(request["operation"].stringValue ?? "", request["request"])
        else { return }
        arguments = [result]
      default:
        fail(.runtime(
          message: "an effect.run coroutine yielded \(request), which is not send, sleep, http or file",
          traceback: ""))
        return
      }
    }
  }

  /// `effect.http`: performs the request and sends the response as the `response` action.
  func request(_ request: LuaValue, responseType: String, wrappers: [LuaReference], send: Send<LuaValue>) async {
    guard var response = await perform(request) else { return }
    response["type"] = .string(LuaString(responseType))
    do { await send(try feature.wrap(response, with: wrappers)) } catch {
      fail(error)
    }
  }

  /// `effect.file.*`: performs the operation and sends the result as the `response` action,
  /// if there is one.
  func fileOperation(
    _ operation: String, _ request: LuaValue, responseType: String?, wrappers: [LuaReference],
    send: Send<LuaValue>
  ) async {
    guard var result = await file(operation, request), let responseType else { return }
    result["type"] = .string(LuaString(responseType))
    do { await send(try feature.wrap(result, with: wrappers)) } catch {
      fail(error)
    }
  }

  /// `{ ok = true, contents | entries }` or `{ ok = false, error }`; nil when cancelled.
  func file(_ operation: String, _ request: LuaValue) async -> LuaValue? {
    guard let path = request["path"].stringValue else {
      return ["ok": false, "error": .string(LuaString(
        "request.path: expected a string, got \(request["path"].typeName)"))]
    }
    func contents() throws -> [UInt8] {
      guard case let .string(text) = request["contents"] else {
        throw FileClientError("request.contents: expected a string, got \(request["contents"].typeName)")
      }
      return text.bytes
    }
    do {
      var result: LuaValue = ["ok": true]
      switch operation {
      case "read": result["contents"] = .string(LuaString(bytes: try await files.read(path)))
      case "write": try await files.write(path, try contents())
      case "append": try await files.append(path, try contents())
      case "list":
        result["entries"] = .table(LuaTable(array: try await files.list(path).map { .string(LuaString($0)) }))
      case "remove": try await files.remove(path)
      case "exists": result["exists"] = .boolean(try await files.exists(path))
      default: throw FileClientError("unknown file operation \(LuaValue(operation))")
      }
      if Task.isCancelled { return nil }
      return result
    } catch {
      if Task.isCancelled || error is CancellationError { return nil }
      return ["ok": false, "error": .string(LuaString("\(error)"))]
    }
  }

  /// The response as a Lua table, or nil when the effect was cancelled.
  func perform(_ value: LuaValue) async -> LuaValue? {
    let request: HTTPRequest
    do { request = try Self.request(from: value) } catch {
      return ["ok": false, "error": .string(LuaString(error.description))]
    }
    do {
      let response = try await http.perform(request)
      if Task.isCancelled { return nil }
      return Self.table(of: response)
    } catch {
      if Task.isCancelled || error is CancellationError { return nil }
      return ["ok": false, "error": .string(LuaString("\(error)"))]
    }
  }

  static func request(from value: LuaValue) throws(LuaError) -> HTTPRequest {
    guard let table = value.tableValue else {
      throw .conversion(path: "request", message: "expected a request table, got \(value.typeName)")
    }
    guard let url = table["url"].stringValue else {
      throw .conversion(path: "request.url", message: "expected a string, got \(table["url"].typeName)")
    }
    var request = HTTPRequest(method: table["method"].stringValue ?? "GET", url: url)
    if let query = table["query"].tableValue {
      // `query = { q = "two words" }`: appended to the URL, percent-encoded, in key order.
      guard var components = URLComponents(string: url) else {
        throw .conversion(path: "request.url", message: "\(LuaValue(url)) is not a URL")
      }
      var items = components.queryItems ?? []
      for (key, value) in query.sortedEntries {
        guard let name = key.stringValue else {
          throw .conversion(path: "request.query", message: "expected string names, got a \(key.typeName)")
        }
        let text: String
        switch value {
        case let .string(string): text = string.description
        case .integer, .number, .boolean: text = value.description
        default:
          throw .conversion(path: "request.query.\(name)", message: "expected a string or number, got \(value.typeName)")
        }
        items.append(URLQueryItem(name: name, value: text))
      }
      components.queryItems = items
      request.url = components.string ?? url
    }
    if let headers = table["headers"].tableValue {
      for (key, value) in headers.entries {
        guard let name = key.stringValue, let text = value.stringValue else {
          throw .conversion(path: "request.headers", message: "expected strings for names and values")
        }
        request.headers[name] = text
      }
    }
    switch table["body"] {
    case .nil: break
    case let .string(body): request.body = body.bytes
    case let .table(body):
      // A table goes as JSON.
      guard let json = try? JSONEncoder.sortedKeys().encode(LuaValue.table(body)) else {
        throw .conversion(path: "request.body", message: "cannot be sent as JSON")
      }
      request.body = Array(json)
      if !request.headers.keys.contains(where: { $0.lowercased() == "content-type" }) {
        request.headers["Content-Type"] = "application/json"
      }
    case let other:
      throw .conversion(path: "request.body", message: "expected a string or a table, got \(other.typeName)")
    }
    if let problem = request.wireProblem {
      throw .conversion(path: "request", message: problem)
    }
    switch table["timeout"] {
    case .nil: break
    case let timeout:
      guard let seconds = timeout.doubleValue, seconds > 0, Seconds.duration(seconds) != nil else {
        throw .conversion(
          path: "request.timeout",
          message: "expected \(Seconds.expected), more than 0, got \(describe(timeout))")
      }
      request.timeout = seconds
    }
    return request
  }

  /// A value in a message: a number as it is (`inf`, `nan`, `1e+300`), anything else by type.
  static func describe(_ value: LuaValue) -> String {
    switch value {
    case .integer, .number: return value.description
    default: return value.typeName
    }
  }

  /// `{ ok, status, headers, body, json }`; `ok` is false for a status outside 200...299 and
  /// for a JSON body that does not parse.
  static func table(of response: HTTPResponse) -> LuaValue {
    var table = LuaTable()
    let success = (200...299).contains(response.status)
    table["ok"] = .boolean(success)
    table["status"] = .integer(response.status)
    var headers = LuaTable()
    for (name, value) in response.headers { headers[name.lowercased()] = .string(LuaString(value)) }
    table["headers"] = .table(headers)
    table["body"] = .string(LuaString(bytes: response.body))
    if !success { table["error"] = .string(LuaString("HTTP \(response.status)")) }
    let contentType = response.headers.first { $0.key.lowercased() == "content-type" }?.value ?? ""
    if contentType.lowercased().contains("json"), !response.body.isEmpty {
      do {
        table["json"] = try JSONDecoder().decode(LuaValue.self, from: Data(response.body))
      } catch {
        table["ok"] = false
        table["error"] = "the body is not valid JSON"
      }
    }
    return .table(table)
  }
}
