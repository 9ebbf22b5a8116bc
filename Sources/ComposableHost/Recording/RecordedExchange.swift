import Composable
import Foundation
import LuaKit

/// One request an effect made of the outside world in a session, and its answer: an HTTP
/// request and response, or a file operation and its result. A replay does not need them
/// (effects' results come back as the actions they sent); a test written from the session
/// serves them to the feature's effects in place of the network and the disk.
public struct RecordedExchange: Equatable, Sendable {
  public enum Kind: String, Sendable { case http, file }

  public var kind: Kind
  /// `{ method, url, body }` for HTTP; `{ operation, path }` for a file.
  public var request: LuaValue
  /// HTTP: `{ status, headers, body }`. A file: `contents` (read; nil when there is no such
  /// file), `names` (list), `exists`; nil for a write.
  public var answer: LuaValue
  /// What the request failed with, when it failed.
  public var error: String?
  /// When it started and when it was answered: seconds on the store's clock.
  public var start: Double
  public var end: Double
}

/// The exchanges of a session, in the order they were answered.
public final class ExchangeLog: @unchecked Sendable {
  private let lock = NSLock()
  private var recorded: [RecordedExchange] = []  // under `lock`

  public init() {}

  public var all: [RecordedExchange] { lock.withLock { recorded } }

  func append(_ exchange: RecordedExchange) { lock.withLock { recorded.append(exchange) } }

  /// `dependencies` whose HTTP client and files note every exchange here, timed on `clock`.
  func recording(_ dependencies: DependencyValues, clock: ReplClock) -> DependencyValues {
    var recording = dependencies
    let http = dependencies.http
    recording.http = HTTPClient { [self] request in
      let start = Seconds.of(clock.now.offset)
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
        append(
          RecordedExchange(
            kind: .http, request: .table(asked), answer: .table(answer), error: nil,
            start: start, end: Seconds.of(clock.now.offset)))
        return response
      } catch {
        append(
          RecordedExchange(
            kind: .http, request: .table(asked), answer: .nil, error: "\(error)", start: start,
            end: Seconds.of(clock.now.offset)))
        throw error
      }
    }
    let files = dependencies.files
    @Sendable func note<T>(
      _ operation: String, _ path: DataPath, answer: (T) -> LuaValue,
      _ body: () async throws -> T
    ) async throws -> T {
      let start = Seconds.of(clock.now.offset)
      let request: LuaValue = [
        "operation": .string(LuaString(operation)), "path": .string(LuaString(path.description)),
      ]
      do {
        let result = try await body()
        append(
          RecordedExchange(
            kind: .file, request: request, answer: answer(result), error: nil, start: start,
            end: Seconds.of(clock.now.offset)))
        return result
      } catch {
        // A read of a file that is not there is an answer (nil), not a failure.
        let missing = (error as? FileClientError)?.code == .notFound
        append(
          RecordedExchange(
            kind: .file, request: request, answer: .nil, error: missing ? nil : "\(error)",
            start: start, end: Seconds.of(clock.now.offset)))
        throw error
      }
    }
    recording.files = FileClient(
      read: { path in
        try await note("read", path, answer: { .string(LuaString(bytes: $0)) }) {
          try await files.read(path)
        }
      },
      write: { path, contents in
        try await note("write", path, answer: { .nil }) { try await files.write(path, contents) }
      },
      append: { path, contents in
        try await note("append", path, answer: { .nil }) {
          try await files.append(path, contents)
        }
      },
      list: { path in
        try await note(
          "list", path,
          answer: { names in .table(LuaTable(array: names.map { .string(LuaString($0)) })) }
        ) { try await files.list(path) }
      },
      remove: { path in
        try await note("remove", path, answer: { .nil }) { try await files.remove(path) }
      },
      exists: { path in
        try await note("exists", path, answer: { .boolean($0) }) { try await files.exists(path) }
      })
    return recording
  }
}
