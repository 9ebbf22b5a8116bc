import ComposableLua
import Foundation
import LuaKit

/// A session as a Swift Testing test over `TestStore(feature:)` (`:test NAME.swift`): the same
/// steps as the Lua test, with the feature found beside the test file (`#filePath`), time on a
/// `ManualClock`, `env` answers on a `LuaEnvironmentTape`, and HTTP and file answers from the
/// recording.
enum SwiftTestWriter {
  static func text(
    _ plan: SessionTestPlan, name: String, testFile: URL
  ) throws(LuaError) -> String {
    let featurePath = ReplSession.path(
      of: plan.feature, relativeTo: testFile.deletingLastPathComponent())
    var lines = [
      "// Written by composable's :test from a REPL session on "
        + "\(LuaComment.line(plan.feature.lastPathComponent)).",
      "// Each action is sent with the change it made, each action an effect sent back is",
      "// received, and the time between is advanced; what env, the network and the files",
      "// answered is served from the recording. Its test target depends on ComposableLuaTesting",
      "// (or IssueReportingTestSupport), without which a failure is a warning and the test passes.",
      "import Composable",
      "import ComposableLua",
      "import Foundation",
      "import LuaKit",
      "import Testing",
      "",
      "@Suite struct \(name) {",
      "  @Test func replaysTheSession() async throws {",
      "    let clock = ManualClock()",
    ]
    // What the session's effects asked of the network and the disk, when they asked anything:
    // a test of a session that asked nothing declares no `Recorded` (an unused variable warned).
    let asksRecorded = !plan.httpExchanges.isEmpty || !plan.fileAnswers.isEmpty
    if asksRecorded { lines.append("    let recorded = Recorded()") }
    lines += [
      "    let store = try TestStore(",
      "      feature: URL(fileURLWithPath: #filePath).deletingLastPathComponent()",
      "        .appendingPathComponent(\(SwiftLiteral.of(LuaString(featurePath)))).path,",
      "      initialState: \(SwiftLiteral.of(plan.initialState, indent: 6)),",
      "      env: \(SwiftLiteral.of(plan.env == .nil ? [:] : plan.env, indent: 6))",
      "    ) {",
      "      $0.clock = clock",
    ]
    if !plan.draws.isEmpty || !plan.effectDraws.isEmpty {
      func answers(_ draws: [LuaEnvironmentTape.Draw], indent: Int) -> [String] {
        SessionTestPlan.answers(draws).map { name, values in
          "\(SwiftLiteral.of(LuaString(name))): "
            + SwiftLiteral.of(.table(LuaTable(array: values)), indent: indent)
        }
      }
      lines.append(
        "      // What env.uuid(), env.now() and env.random() answered, in order: the reducer,")
      lines.append(
        "      // and under effectsOfActions[N], the effects that the Nth action sent or")
      lines.append("      // received started.")
      let reducers = answers(plan.draws, indent: 8)
      lines.append(
        "      $0.environmentTape = LuaEnvironmentTape(playing: [" + (reducers.isEmpty ? ":]" : ""))
      if !reducers.isEmpty {
        lines += reducers.map { "        " + $0 + "," }
        lines.append("      ]" + (plan.effectDraws.isEmpty ? ")" : ""))
      }
      if !plan.effectDraws.isEmpty {  // with none for reducers, `playing: [:]` is open here
        lines[lines.count - 1] += ", effectsOfActions: ["
        for (step, draws) in plan.effectDraws.sorted(by: { $0.key < $1.key }) {
          lines.append("        \(step): [")
          lines += answers(draws, indent: 10).map { "          " + $0 + "," }
          lines.append("        ],")
        }
        lines.append("      ])")
      }
    }
    if !plan.httpExchanges.isEmpty {
      lines.append(
        "      $0.http = HTTPClient { request in try await recorded.answer(request, clock: clock) }"
      )
    }
    if !plan.fileAnswers.isEmpty {
      lines.append("      $0.files = recorded.files")
    } else if plan.saveDelay != nil {
      lines.append("      $0.files = .inMemory()")
    }
    lines.append("    }")
    lines += try plan.body(syntax)
    lines.append("  }")
    if asksRecorded { lines += [""] + recordedHelper(plan) }
    lines += ["}", ""]
    return lines.joined(separator: "\n")
  }

  /// A Swift Testing test's statements over `TestStore(feature:)`.
  static let syntax = TestSyntax(
    comment: "//",
    advance: {
      $0 % 1_000_000 == 0
        ? "await clock.advance(by: .milliseconds(\($0 / 1_000_000)))"
        : $0 % 1000 == 0
          ? "await clock.advance(by: .microseconds(\($0 / 1000)))"
          : "await clock.advance(by: .nanoseconds(\($0)))"
    },
    literal: { SwiftLiteral.of($0, indent: 4) },
    changes: { SwiftLiteral.assignments(from: $0, to: $1, target: "$0") },
    call: { "await store.\($0)(\($1))" },
    open: { "await store.\($0)(\($1)) {" },
    close: "}",
    expectFailure: { messages in
      // Each message's longest run without an address (which differs from run to run).
      let parts = messages.map { message in
        SwiftLiteral.of(
          SessionTestPlan.splittingAddresses(message).compactMap { $0 }
            .max { $0.count < $1.count } ?? "")
      }
      let test =
        parts.count == 1
        ? "$0.description.contains(\(parts[0]))"
        : "issue in [\(parts.joined(separator: ", "))].contains { issue.description.contains($0) }"
      return ("await withKnownIssue {", "} matching: { \(test) }")
    },
    expectsFailuresInAdvances: false,
    skipInFlightEffects: "await store.skipInFlightEffects()",
    skipReceivedActions: "await store.skipReceivedActions()",
    finish: "await store.finish()")

  /// The nested `Recorded` class: the HTTP responses and file answers of the session, served
  /// in order to requests of the same method and URL (operation and path).
  static func recordedHelper(_ plan: SessionTestPlan) -> [String] {
    var lines = [
      "  /// The HTTP requests and file operations effects made in the session, and their answers.",
      "  final class Recorded: @unchecked Sendable {",
      "    private let lock = NSLock()",
      "    /// Method, URL, body, the response (or the error), and nanoseconds it took.",
      "    private var responses:",
      "      [(String, String, [UInt8], Result<HTTPResponse, HTTPClientError>, Int)] = [",
    ]
    for (exchange, delay) in plan.httpExchanges {
      let method = SwiftLiteral.of(exchange.request.method.stringValue ?? "")
      let url = SwiftLiteral.of(exchange.request.url.stringValue ?? "")
      let result: String
      var delay = delay
      if exchange.cancelled {
        // Its effect was cancelled before the answer came: in flight until the test cancels it.
        result = ".failure(HTTPClientError(\"never answered: cancelled in the session\"))"
        delay = Int.max
      } else if let error = exchange.error {
        result = ".failure(HTTPClientError(\(SwiftLiteral.of(LuaString(error)))))"
      } else {
        let answer = exchange.answer
        var headers: [String] = []
        for (key, value) in answer.headers.tableValue?.sortedEntries ?? [] {
          if case let .string(name) = key, case let .string(text) = value {
            headers.append("\(SwiftLiteral.of(name)): \(SwiftLiteral.of(text))")
          }
        }
        let body = answer.body.stringValue.map { $0 } ?? ""
        result =
          ".success(HTTPResponse(status: \(answer.status.intValue ?? 200), headers: "
          + "[\(headers.isEmpty ? ":" : headers.joined(separator: ", "))], "
          + "text: \(SwiftLiteral.of(LuaString(body)))))"
      }
      let sent: [UInt8]
      if case let .string(text) = exchange.request.body { sent = text.bytes } else { sent = [] }
      let body = SwiftLiteral.bytes(sent)
      lines.append("      (\(method), \(url), \(body), \(result), \(delay)),")
    }
    lines += [
      "    ]",
      "    /// Operation, path, and the answer: contents, names, a boolean, nil, or an error.",
      "    private var fileAnswers: [(String, String, LuaValue, String?)] = [",
    ]
    for exchange in plan.fileAnswers {
      let operation = SwiftLiteral.of(exchange.request.operation.stringValue ?? "")
      let path = SwiftLiteral.of(exchange.request.path.stringValue ?? "")
      let error = exchange.error.map { SwiftLiteral.of(LuaString($0)) } ?? "nil"
      lines.append("      (\(operation), \(path), \(SwiftLiteral.of(exchange.answer)), \(error)),")
    }
    lines += [
      "    ]",
      "",
      "    func answer(_ request: HTTPRequest, clock: ManualClock) async throws -> HTTPResponse {",
      "      let found = lock.withLock { () -> (Result<HTTPResponse, HTTPClientError>, Int)? in",
      "        guard",
      "          let index = responses.firstIndex(where: {",
      "            $0.0 == request.method && $0.1 == request.url && $0.2 == (request.body ?? [])",
      "          })",
      "        else { return nil }",
      "        let (_, _, _, result, delay) = responses.remove(at: index)",
      "        return (result, delay)",
      "      }",
      "      guard let (result, delay) = found else {",
      "        throw HTTPClientError(\"the session made no more \\(request.method) \\(request.url) requests\")",
      "      }",
      "      if delay > 0 { try await clock.sleep(for: .nanoseconds(delay)) }",
      "      return try result.get()",
      "    }",
      "",
      "    /// What the test wrote, read back as a disk would (a save reads its file before it",
      "    /// writes it again); nil inside: removed.",
      "    private var written: [String: [UInt8]?] = [:]",
      "",
      "    func file(_ operation: String, _ path: DataPath, _ contents: [UInt8] = []) throws -> LuaValue {",
      "      let name = path.description",
      "      let found = lock.withLock { () -> (LuaValue, String?)? in",
      "        let index = fileAnswers.firstIndex(where: { $0.0 == operation && $0.1 == name })",
      "        let found = index.map { fileAnswers.remove(at: $0) }.map { ($0.2, $0.3) }",
      "        guard found?.1 == nil else { return found }",
      "        switch operation {",
      "        case \"write\": written[name] = .some(contents)",
      "        case \"append\": written[name] = .some(((written[name] ?? nil) ?? []) + contents)",
      "        case \"remove\": written[name] = .some(nil)",
      "        default: break",
      "        }",
      "        if let found { return found }",
      "        switch (operation, written[name]) {",
      "        case let (\"read\", contents??): return (.string(LuaString(bytes: contents)), nil)",
      "        case (\"exists\", let contents?): return (.boolean(contents != nil), nil)",
      "        default: return nil",
      "        }",
      "      }",
      "      if let error = found?.1 { throw FileClientError(error) }",
      "      return found?.0 ?? .nil",
      "    }",
      "",
      "    /// Writes are taken and read back; a read of a file the session never read or the test",
      "    /// never wrote finds none.",
      "    var files: FileClient {",
      "      FileClient(",
      "        read: { path in",
      "          guard case let .string(contents) = try self.file(\"read\", path) else {",
      "            throw FileClientError.notFound(path)",
      "          }",
      "          return contents.bytes",
      "        },",
      "        write: { path, contents in _ = try self.file(\"write\", path, contents) },",
      "        append: { path, contents in _ = try self.file(\"append\", path, contents) },",
      "        list: { path in (try self.file(\"list\", path).tableValue?.sequence ?? []).compactMap(\\.stringValue) },",
      "        remove: { path in _ = try self.file(\"remove\", path) },",
      "        exists: { path in try self.file(\"exists\", path) == true })",
      "    }",
      "  }",
    ]
    return lines
  }
}
