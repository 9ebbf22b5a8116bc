import Composable
import Foundation
import IssueReporting
import LuaKit

/// The clients a Lua test gives `TestStore.new` (`http`, `files`, `uuid`), made into the
/// store's dependencies.
extension LuaTestSession {
  /// `http = function(request) return { status = 200, body = "..." } end`; `json = {...}`
  /// instead of `body` sends JSON, and `delay = seconds` answers after that long on the
  /// store's test clock (a request in flight, for tests of cancellation). A delay past the
  /// request's `timeout` (or the default 30 s) fails at the timeout, as the live client does.
  func httpClient(_ value: LuaValue, clock: ManualClock) throws -> HTTPClient {
    switch value {
    case .nil:
      return HTTPClient { request in
        reportIssue(
          """
          A test used "http" without providing it: \(request.method) \(request.url)

          To fix, give the TestStore an http function: \
          TestStore.new{ ..., http = function(request) return { status = 200, body = "..." } end }
          """)
        throw HTTPClientError("http is not provided in this test")
      }
    case let .function(answer):
      return HTTPClient { [queue] request in
        var table = LuaTable()
        table["method"] = .string(LuaString(request.method))
        table["url"] = .string(LuaString(request.url))
        table["body"] = .string(LuaString(bytes: request.body ?? []))
        // `json = ...` is written as json.encode writes it: one JSON for Lua values.
        let (reply, json) = try queue.access { vm, _ throws(LuaError) -> (LuaValue, String?) in
          let reply = try vm.call(answer, .table(table)).first ?? .nil
          return (reply, reply.json == .nil ? nil : try vm.jsonEncode(reply.json))
        }
        guard let status = reply.status.intValue else {
          throw HTTPClientError("the test's http function must return { status = ..., body = ... }")
        }
        var headers: [String: String] = [:]
        for (key, value) in reply.headers.tableValue?.entries ?? [:] {
          if let name = key.stringValue, let text = value.stringValue { headers[name] = text }
        }
        var body = reply.body.stringValue.map { Array($0.utf8) } ?? []
        if let json {
          body = Array(json.utf8)
          headers["Content-Type"] = headers["Content-Type"] ?? "application/json"
        }
        if reply.delay != .nil {
          guard let delay = reply.delay.doubleValue.flatMap(Seconds.duration) else {
            throw LuaTestError(
              "http: delay: expected \(Seconds.expected), got "
                + LuaValue.describeForMessage(reply.delay))
          }
          let timeout = request.timeout ?? HTTPRequest.defaultTimeout
          if let limit = Seconds.duration(timeout), delay > limit {
            try await clock.sleep(for: limit)
            throw HTTPClientError.timedOut(request, after: timeout)
          }
          try await clock.sleep(for: delay)
        }
        return HTTPResponse(status: status, headers: headers, body: body)
      }
    default:
      throw LuaTestError("TestStore.new: http must be a function(request), got \(value.typeName)")
    }
  }

  /// `files = "fixtures/todos"` (a copy, so the fixture is never changed; the folder must be
  /// under the test's folder), `files = { ["todos.saved.lua"] = "..." }`, or a function.
  func fileClient(_ value: LuaValue) throws -> FileClient {
    switch value {
    case .nil:
      return FileClient.failing("files are not provided in this test") { operation, path in
        reportIssue(
          """
          A test used "files" without providing it: \(operation) \(path)

          To fix, give the TestStore files: TestStore.new{ ..., files = "fixtures/dir" } \
          (a copy of a directory beside the test) or files = { ["name.txt"] = "contents" }
          """)
      }
    case let .string(path):
      let fixture: DataPath
      do { fixture = try DataPath(validating: path.bytes) } catch {
        throw LuaTestError("TestStore.new: files: \(error)")
      }
      return .live(root: try LuaTestFixture.copy(fixture, under: directory))
    case let .table(table):
      var files: [DataPath: [UInt8]] = [:]
      for (key, value) in table.entries {
        guard case let .string(name) = key, case let .string(contents) = value else {
          throw LuaTestError(
            "TestStore.new: files must map names to contents (strings), got "
              + "\(LuaValue.describeForMessage(key)) = \(value.typeName)")
        }
        do { files[try DataPath(validating: name.bytes)] = contents.bytes } catch {
          throw LuaTestError("TestStore.new: files[\(LuaValue.describeForMessage(key))]: \(error)")
        }
      }
      return .inMemory(bytes: files)
    case let .function(answer):
      // files = function(request) ... end, request = { operation, path, contents }: returns the
      // contents for read, names for list, a boolean for exists; raises to fail the operation.
      let call: @Sendable (String, DataPath, [UInt8]?) async throws -> LuaValue = {
        [queue] operation, path, contents in
        var request = LuaTable()
        request["operation"] = .string(LuaString(operation))
        request["path"] = .string(LuaString(path.description))
        if let contents { request["contents"] = .string(LuaString(bytes: contents)) }
        do {
          return try queue.access { vm, _ in try vm.call(answer, .table(request)).first ?? .nil }
        } catch let error as LuaError {
          throw FileClientError(error.message)
        }
      }
      return FileClient(
        read: { path in
          guard case let .string(text) = try await call("read", path, nil) else {
            throw FileClientError.notFound(path)
          }
          return text.bytes
        },
        write: { path, contents in _ = try await call("write", path, contents) },
        append: { path, contents in _ = try await call("append", path, contents) },
        list: { path in
          (try await call("list", path, nil).tableValue?.sequence ?? []).compactMap(\.stringValue)
        },
        remove: { path in _ = try await call("remove", path, nil) },
        exists: { path in try await call("exists", path, nil) == true })
    default:
      throw LuaTestError(
        "TestStore.new: files must be a fixture directory, a table or a function, got \(value.typeName)"
      )
    }
  }

  func uuidGenerator(_ value: LuaValue) throws -> UUIDGenerator? {
    switch value {
    case .nil: return Self.unprovidedUUID
    case let .string(kind) where kind.description == "incrementing": return .incrementing
    default: throw LuaTestError("TestStore.new: uuid must be \"incrementing\", got \(value)")
    }
  }

  /// What `env.uuid()` gives in a test that gave no `uuid`: a failure, in Lua's words.
  static let unprovidedUUID = UUIDGenerator {
    reportIssue(
      """
      A test used "uuid" without providing it (env.uuid()).

      To fix, give the TestStore a generator: TestStore.new{ ..., uuid = "incrementing" } \
      (00000000-0000-0000-0000-000000000000, then ...001).
      """)
    return UUID(uuidString: "DEADBEEF-DEAD-BEEF-DEAD-BEEFDEADBEEF")!
  }

  /// What `env.now()` gives in a test that gave no `now`: a failure, in Lua's words.
  static let unprovidedDate = DateGenerator {
    reportIssue(
      """
      A test used "date" without providing it (env.now()).

      To fix, give the TestStore a time: TestStore.new{ ..., now = 1700000000 } (seconds since \
      1970).
      """)
    return Date(timeIntervalSince1970: 0)
  }

  /// `answers = { uuid = { ... }, now = { ... }, random = { ... } }`: what `env.uuid()`,
  /// `env.now()` and `env.random()` answer the reducer, each function's in order (a test
  /// written from a recorded session gives the answers the session got).
  func answersTape(_ value: LuaValue) throws -> LuaEnvironmentTape {
    guard let table = value.tableValue else {
      throw LuaTestError("TestStore.new: answers must be a table, got \(value.typeName)")
    }
    var answers: [String: [LuaValue]] = [:]
    for (key, list) in table.entries {
      guard let name = key.stringValue, ["uuid", "now", "random"].contains(name),
        let values = list.tableValue, values.isSequence || values.isEmpty
      else {
        throw LuaTestError(
          "TestStore.new: answers maps uuid, now and random to lists of answers, got "
            + "\(LuaValue.describeForMessage(key))")
      }
      answers[name] = values.sequence
    }
    return LuaEnvironmentTape(playing: answers)
  }
}
