// Written by composable's :test from a REPL session on facts.lua.
// Each action is sent with the change it made, each action an effect sent back is
// received, and the time between is advanced; what env, the network and the files
// answered is served from the recording. Its test target depends on ComposableLuaTesting
// (or IssueReportingTestSupport), without which a failure is a warning and the test passes.
import Composable
import ComposableLua
import Foundation
import LuaKit
import Testing

@Suite struct FactsSessionTests {
  @Test func replaysTheSession() async throws {
    let clock = ManualClock()
    let recorded = Recorded()
    let store = try TestStore(
      feature: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../fixtures/facts/facts.lua").path,
      initialState: ["facts": [:], "items": [:]],
      env: ["url": "http://facts.example"]
    ) {
      $0.clock = clock
      // What env.uuid(), env.now() and env.random() answered, in order: the reducer,
      // and under effectsOfActions[N], the effects that the Nth action sent or
      // received started.
      $0.environmentTape = LuaEnvironmentTape(playing: [
        "uuid": [
          "00000000-0000-0000-0000-000000000000",
          "00000000-0000-0000-0000-000000000001",
          "00000000-0000-0000-0000-000000000002",
        ],
      ])
      $0.http = HTTPClient { request in try await recorded.answer(request, clock: clock) }
    }
    await store.send(["type": "fetch"])
    await store.receive([
      "body": "a fact\r\nover two lines",
      "headers": ["content-type": "text/plain"],
      "ok": true,
      "status": 200,
      "type": "fact_loaded",
    ]) {
      $0["facts"][1] = "a fact\r\nover two lines"
    }
    await store.send(["n": 3, "type": "add"]) {
      $0["items"][1] = ["id": "00000000-0000-0000-0000-000000000000", "n": 3]
    }
    await clock.advance(by: .milliseconds(250))
    await store.send(["n": 1, "type": "add"]) {
      $0["items"][2] = ["id": "00000000-0000-0000-0000-000000000001", "n": 1]
    }
    await clock.advance(by: .milliseconds(250))
    await store.send(["n": 2, "type": "add"]) {
      $0["items"][3] = ["id": "00000000-0000-0000-0000-000000000002", "n": 2]
    }
    await clock.advance(by: .milliseconds(500))
    await store.receive(["type": "sort"]) {
      $0["items"] = [
        ["id": "00000000-0000-0000-0000-000000000001", "n": 1],
        ["id": "00000000-0000-0000-0000-000000000002", "n": 2],
        ["id": "00000000-0000-0000-0000-000000000000", "n": 3],
      ]
    }
    await store.send(["at": 1, "type": "remove"]) {
      $0["items"] = [
        ["id": "00000000-0000-0000-0000-000000000002", "n": 2],
        ["id": "00000000-0000-0000-0000-000000000000", "n": 3],
      ]
    }
    await store.finish()
  }

  /// The HTTP requests and file operations effects made in the session, and their answers.
  final class Recorded: @unchecked Sendable {
    private let lock = NSLock()
    /// Method, URL, body, the response (or the error), and nanoseconds it took.
    private var responses:
      [(String, String, [UInt8], Result<HTTPResponse, HTTPClientError>, Int)] = [
      ("GET", "http://facts.example/fact", [], .success(HTTPResponse(status: 200, headers: ["Content-Type": "text/plain"], text: "a fact\r\nover two lines")), 0),
    ]
    /// Operation, path, and the answer: contents, names, a boolean, nil, or an error.
    private var fileAnswers: [(String, String, LuaValue, String?)] = [
    ]

    func answer(_ request: HTTPRequest, clock: ManualClock) async throws -> HTTPResponse {
      let found = lock.withLock { () -> (Result<HTTPResponse, HTTPClientError>, Int)? in
        guard
          let index = responses.firstIndex(where: {
            $0.0 == request.method && $0.1 == request.url && $0.2 == (request.body ?? [])
          })
        else { return nil }
        let (_, _, _, result, delay) = responses.remove(at: index)
        return (result, delay)
      }
      guard let (result, delay) = found else {
        throw HTTPClientError("the session made no more \(request.method) \(request.url) requests")
      }
      if delay > 0 { try await clock.sleep(for: .nanoseconds(delay)) }
      return try result.get()
    }

    /// What the test wrote, read back as a disk would (a save reads its file before it
    /// writes it again); nil inside: removed.
    private var written: [String: [UInt8]?] = [:]

    func file(_ operation: String, _ path: DataPath, _ contents: [UInt8] = []) throws -> LuaValue {
      let name = path.description
      let found = lock.withLock { () -> (LuaValue, String?)? in
        let index = fileAnswers.firstIndex(where: { $0.0 == operation && $0.1 == name })
        let found = index.map { fileAnswers.remove(at: $0) }.map { ($0.2, $0.3) }
        guard found?.1 == nil else { return found }
        switch operation {
        case "write": written[name] = .some(contents)
        case "append": written[name] = .some(((written[name] ?? nil) ?? []) + contents)
        case "remove": written[name] = .some(nil)
        default: break
        }
        if let found { return found }
        switch (operation, written[name]) {
        case let ("read", contents??): return (.string(LuaString(bytes: contents)), nil)
        case ("exists", let contents?): return (.boolean(contents != nil), nil)
        default: return nil
        }
      }
      if let error = found?.1 { throw FileClientError(error) }
      return found?.0 ?? .nil
    }

    /// Writes are taken and read back; a read of a file the session never read or the test
    /// never wrote finds none.
    var files: FileClient {
      FileClient(
        read: { path in
          guard case let .string(contents) = try self.file("read", path) else {
            throw FileClientError.notFound(path)
          }
          return contents.bytes
        },
        write: { path, contents in _ = try self.file("write", path, contents) },
        append: { path, contents in _ = try self.file("append", path, contents) },
        list: { path in (try self.file("list", path).tableValue?.sequence ?? []).compactMap(\.stringValue) },
        remove: { path in _ = try self.file("remove", path) },
        exists: { path in try self.file("exists", path) == true })
    }
  }
}
