import Composable
import ComposableLua
import Foundation
import LocalServer
import LuaKit
import TestSupport
import Testing

@testable import ComposableHost

/// `:test NAME_test.lua`: a session recorded in the REPL (an HTTP request to a real server on
/// 127.0.0.1, a debounced sort, ids from live UUIDs) written as a Lua TestStore test that
/// passes when written and fails when the reducer changes.
@Suite struct SessionAsTestTests {
  typealias Harness = ReplSessionTests.Harness

  /// The feature: a fact fetched over HTTP, items added with ids from `env.uuid()` and sorted
  /// half a second after the last add, items removed.
  static let feature = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("fixtures/facts/facts.lua")
  static let source = (try? String(contentsOf: feature, encoding: .utf8)) ?? ""

  /// Records the session: a fact fetched, three adds a quarter second apart, the sort half a
  /// second after the last, a removal.
  func record(_ server: LocalHTTPServer) async throws -> Harness {
    let repl = try Harness(source: Self.source, env: ["url": .string(LuaString(server.url))])
    await repl.type("fetch")
    for _ in 0..<6000 where repl.session.timeline.count < 2 {
      try await Task.sleep(for: .milliseconds(10))
    }
    await repl.session.settle()
    #expect(repl.session.timeline.count == 2)
    for n in [3, 1, 2] {
      await repl.type("{ type = \"add\", n = \(n) }", ":advance 0.25")
    }
    await repl.type(":advance 0.25")
    await repl.type(#"{ type = "remove", at = 1 }"#)
    #expect(
      try repl.session.feature.evaluate("#state.items, state.items[1].n, state.facts[1]")
        == [2, 2, "a fact\r\nover two lines"])
    return repl
  }

  @Test func aSessionBecomesATestThatPassesAndFailsWhenTheReducerChanges() async throws {
    let server = try LocalHTTPServer { request in
      request.path == "/fact" ? .text("a fact\r\nover two lines") : .text("no", status: 404)
    }
    defer { server.stop() }
    let repl = try await record(server)
    let directory = repl.file.deletingLastPathComponent()
    let test = directory.appendingPathComponent("facts_test.lua")
    let written = await repl.type(":test \(test.path)").0
    #expect(
      written == "  wrote \(test.path): 5 sent, 2 received; it passes "
        + "(composable test \(test.path))")
    let text = try String(contentsOf: test, encoding: .utf8)
    // The HTTP answer is served from the recording, not asked of the server again.
    #expect(text.contains(#"url = "\#(server.url)/fact""#))
    #expect(text.contains(#"body = "a fact\r\nover two lines""#))
    #expect(text.contains("store:advance(0.25)"))
    #expect(text.contains(#"store:receive({ type = "sort" }, function(s)"#))
    #expect(text.contains("table.remove(s.items, 1)"))
    // An element that changed in every field is written whole.
    #expect(text.contains(#"      s.items[1] = { id = ""#))
    server.stop()
    let passing = await LuaTestRunner().run(file: test)
    #expect(passing.map(\.outcome) == [.passed], "\(passing)")

    // One character of the reducer: the sort goes the other way.
    let source = try String(contentsOf: repl.file, encoding: .utf8)
    try source.replacingOccurrences(of: "a.n < b.n", with: "a.n > b.n")
      .write(to: repl.file, atomically: true, encoding: .utf8)
    let failing = await LuaTestRunner().run(file: test)
    guard case let .failed(messages)? = failing.first?.outcome else {
      Issue.record("the test did not fail: \(failing)")
      return
    }
    let message = messages.joined(separator: "\n")
    #expect(message.contains("facts_test.lua:"))
    // The same items in the other order: each place shows the item it holds, whole.
    #expect(message.contains("− items[1] = { id = "), "\(message)")
    #expect(message.contains(", n = 1 }\n+ items[1] = { id = "), "\(message)")
    #expect(message.contains(", n = 3 }\n− items[3] = { id = "), "\(message)")
    #expect(!message.contains("items[1].n"), "\(message)")
  }

  /// JSON's null in the state at the start and in each change is written `json.null` (the
  /// test could not be written: a saved file's form has no null), and the test passes; a
  /// reducer that keeps nil where it kept json.null fails it.
  @Test func jsonNullInTheStateIsWrittenAsItself() async throws {
    let source = """
      local json = require("composable.json")
      return {
        initial_state = function() return { profile = json.decode('{"name":null}'), seen = {} } end,
        reduce = function(state, action)
          if action.type == "load" then
            state.profile = json.decode(action.body)
            table.insert(state.seen, json.null)
          end
        end,
      }
      """
    let repl = try Harness(source: source)
    await repl.type(#"{ type = "load", body = '{"name":"Ann","age":null,"tags":[null,1]}' }"#)
    let test = repl.file.deletingLastPathComponent().appendingPathComponent("nulls_test.lua")
    let written = await repl.type(":test \(test.path)").0
    #expect(written.hasPrefix("  wrote \(test.path): 1 sent, 0 received; it passes"), "\(written)")
    let text = try String(contentsOf: test, encoding: .utf8)
    #expect(text.contains(#"local json = require("composable.json")"#), "\(text)")
    #expect(text.contains("profile = { name = json.null }"), "\(text)")
    #expect(text.contains("age = json.null"), "\(text)")
    #expect(text.contains("tags = { json.null, 1 }"), "\(text)")
    #expect(text.contains("s.seen[1] = json.null"), "\(text)")
    #expect(await LuaTestRunner().run(file: test).map(\.outcome) == [.passed])
    // As a Swift test: `.jsonNull`, the value the state holds (LuaValue.jsonNull).
    let swift = repl.file.deletingLastPathComponent().appendingPathComponent("NullsTests.swift")
    _ = await repl.type(":test \(swift.path)")
    let swiftText = try String(contentsOf: swift, encoding: .utf8)
    #expect(swiftText.contains(#""profile": ["name": .jsonNull]"#), "\(swiftText)")
    #expect(swiftText.contains(#""tags": [.jsonNull, 1]"#), "\(swiftText)")
    #expect(!swiftText.contains("nil /*"), "\(swiftText)")

    try source.replacingOccurrences(of: "table.insert(state.seen, json.null)", with: "")
      .write(to: repl.file, atomically: true, encoding: .utf8)
    let failing = await LuaTestRunner().run(file: test)
    guard case let .failed(messages)? = failing.first?.outcome else {
      Issue.record("the test did not fail: \(failing)")
      return
    }
    #expect(messages.joined().contains("seen[1] = json.null"), "\(messages)")
  }

  /// A session of a feature that persists and reads a file: the test's `files` answers the
  /// recorded read, and a save's read of its file with what the test wrote before (it took
  /// writes and forgot them, so the second save found its file gone and went beside it: every
  /// session longer than a save's wait failed as a test; a new user's finding).
  @Test func aSessionThatSavesTwiceBecomesATestThatPasses() async throws {
    let source = try String(contentsOf: SessionAsSwiftTestTests.saves, encoding: .utf8)
    let data = try makeTemporaryDirectory("repl-saves")
    defer { try? FileManager.default.removeItem(at: data) }
    try "hello".write(
      to: data.appendingPathComponent("note.txt"), atomically: true, encoding: .utf8)
    var dependencies = DependencyValues.live
    dependencies.files = .live(root: data)
    let repl = try Harness(source: source, dependencies: dependencies)
    await repl.type("load")
    for _ in 0..<6000 where repl.session.timeline.count < 2 {
      try await Task.sleep(for: .milliseconds(10))
    }
    try await SessionAsSwiftTestTests.addThrice(repl)
    let test = repl.file.deletingLastPathComponent().appendingPathComponent("saves_test.lua")
    let written = await repl.type(":test \(test.path)").0
    #expect(written.contains("it passes"), "\(written)")
    let text = try String(contentsOf: test, encoding: .utf8)
    #expect(text.contains("local file_answers = "), "\(text)")
    #expect(await LuaTestRunner().run(file: test).map(\.outcome) == [.passed])
  }

  /// A Lua test's bare name is written beside the feature, wherever the REPL was started (the
  /// tests run from the package's folder; the feature is in a temporary one).
  @Test func aBareLuaTestNameIsWrittenBesideTheFeature() async throws {
    let repl = try Harness()
    await repl.type("increment")
    let said = await repl.type(":test bare_session_test.lua").0
    let written = repl.file.deletingLastPathComponent().resolvingSymlinksInPath()
      .appendingPathComponent("bare_session_test.lua")
    #expect(FileManager.default.fileExists(atPath: written.path))
    #expect(said.hasPrefix("  wrote \(written.path): 1 sent, 0 received; it passes"), "\(said)")
  }

  @Test func aTestIsNeverWrittenOverAFileOrAwayFromTheFeature() async throws {
    let repl = try Harness()
    await repl.type("increment")
    let directory = repl.file.deletingLastPathComponent()
    let existing = directory.appendingPathComponent("counter_test.lua")
    try "-- mine".write(to: existing, atomically: true, encoding: .utf8)
    #expect(
      await repl.type(":test \(existing.path)").0 == "  error: \(existing.path) exists, and "
        + ":test does not write over a file: remove it, or choose another name")
    #expect(try String(contentsOf: existing, encoding: .utf8) == "-- mine")
    // A symlink of that name, dangling or not, is a file there too (a dangling one gave
    // Foundation's raw "File exists"); nothing is written through it.
    for (name, target) in [("dangling_test.lua", "nowhere.lua"), ("Linked.swift", "counter.lua")] {
      let link = directory.appendingPathComponent(name)
      try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: target)
      #expect(
        await repl.type(":test \(link.path)").0 == "  error: \(link.path) exists (a symbolic "
          + "link), and :test does not write over a file: remove it, or choose another name")
    }
    #expect(
      !FileManager.default.fileExists(atPath: directory.appendingPathComponent("nowhere.lua").path))
    let elsewhere = try makeTemporaryDirectory("elsewhere").appendingPathComponent("c_test.lua")
    #expect(
      await repl.type(":test \(elsewhere.path)").0.hasPrefix(
        "  error: write a Lua test beside counter.lua"))
    #expect(
      await repl.type(":test notes.txt").0.hasPrefix("  error: :test takes a Lua test's name"))
    #expect(
      await repl.type(":test my-session.swift").0 == "  error: my-session.swift: the file's "
        + "name is the test suite's, so it must be a Swift name that is no keyword (:test "
        + "SessionTests.swift)")
    let swift = directory.appendingPathComponent("CounterSessionTests.swift")
    #expect(await repl.type(":test \(swift.path)").0 == "  wrote \(swift.path): 1 sent, 0 received")
    let text = try String(contentsOf: swift, encoding: .utf8)
    #expect(text.contains("@Suite struct CounterSessionTests {"))
    #expect(text.contains(#"    await store.send(["type": "increment"]) {"#))
    #expect(text.contains(#"      $0["count"] = 1"#))
  }

  /// An action that raised is sent in the test expecting the failure, saying so; the test
  /// passes.
  @Test func anActionThatRaisedIsSentExpectingTheFailure() async throws {
    let repl = try Harness()
    await repl.type("increment", "boom", "increment")
    let test = repl.file.deletingLastPathComponent().appendingPathComponent("boom_test.lua")
    #expect(
      await repl.type(":test \(test.path)").0.hasSuffix(
        "; it passes (composable test \(test.path))"))
    let text = try String(contentsOf: test, encoding: .utf8)
    #expect(
      text.contains(
        #"    -- action 2 ({ type = "boom" }) raised when recorded, and fails here too:"#))
    #expect(text.contains(#"    expect_failure(""#), "\(text)")
  }
}

/// `:test NAME.swift`: the Swift test written from a session is the one in `Generated/`, which
/// compiles and passes as part of this suite. (Set `REGENERATE_SESSION_TESTS=1` to write it
/// again after a deliberate change to the writer.)
@Suite struct SessionAsSwiftTestTests {
  static let generated = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Generated/FactsSessionTests.swift")

  static let saves = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("fixtures/saves/saves.lua")
  static let generatedSaves = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Generated/SavesSessionTests.swift")

  /// A file read, then three adds a second apart: three saves.
  static func addThrice(_ repl: ReplSessionTests.Harness) async throws {
    await repl.type("load")
    for _ in 0..<6000 where repl.session.timeline.count < 2 {
      try await Task.sleep(for: .milliseconds(10))
    }
    await repl.type("add", ":advance 1", "add", ":advance 1", "add", ":advance 1")
    #expect(try repl.session.feature.evaluate("#state.items, state.note") == [3, "hello"])
  }

  /// The Swift test of a session that read a file and saved three times: its files answer the
  /// read from the recording and the saves' reads with what they wrote (it compiles and passes
  /// in `Generated/` too).
  @Test func theSwiftTestOfASessionThatSavesIsTheOneThatRuns() async throws {
    let data = try makeTemporaryDirectory("swift-saves")
    defer { try? FileManager.default.removeItem(at: data) }
    try "hello".write(
      to: data.appendingPathComponent("note.txt"), atomically: true, encoding: .utf8)
    var dependencies = DependencyValues.live
    dependencies.files = .live(root: data)
    let repl = try ReplSessionTests.Harness(dependencies: dependencies, file: Self.saves)
    try await Self.addThrice(repl)
    let plan = try SessionTestPlan(
      recording: await repl.session.recording(), exchanges: repl.session.exchanges.all,
      feature: Self.saves, inFlight: [])
    let text = try SwiftTestWriter.text(
      plan, name: "SavesSessionTests", testFile: Self.generatedSaves)
    if ProcessInfo.processInfo.environment["REGENERATE_SESSION_TESTS"] == "1" {
      try Data(text.utf8).write(to: Self.generatedSaves)
    }
    #expect(text.contains(#"("read", "note.txt", "hello", nil)"#), "\(text)")
    #expect(!text.contains(#""items.saved.lua", "#), "\(text)")
    let committed = try String(contentsOf: Self.generatedSaves, encoding: .utf8)
    #expect(text == committed)
  }

  @Test func theSwiftTestWrittenFromASessionIsTheOneThatRuns() async throws {
    var dependencies = DependencyValues.live
    dependencies.uuid = .incrementing
    dependencies.http = HTTPClient { request in
      HTTPResponse(
        status: 200, headers: ["Content-Type": "text/plain"], text: "a fact\r\nover two lines")
    }
    let feature = SessionAsTestTests.feature
    let repl = try ReplSessionTests.Harness(
      env: ["url": "http://facts.example"], dependencies: dependencies, file: feature)
    await repl.type("fetch")
    for _ in 0..<6000 where repl.session.timeline.count < 2 {
      try await Task.sleep(for: .milliseconds(10))
    }
    for n in [3, 1, 2] { await repl.type("{ type = \"add\", n = \(n) }", ":advance 0.25") }
    await repl.type(":advance 0.25", #"{ type = "remove", at = 1 }"#)
    let plan = try SessionTestPlan(
      recording: await repl.session.recording(), exchanges: repl.session.exchanges.all,
      feature: feature, inFlight: [])
    let text = try SwiftTestWriter.text(plan, name: "FactsSessionTests", testFile: Self.generated)
    if ProcessInfo.processInfo.environment["REGENERATE_SESSION_TESTS"] == "1" {
      try Data(text.utf8).write(to: Self.generated)
    }
    let committed = try String(contentsOf: Self.generated, encoding: .utf8)
    #expect(text == committed)
  }
}
