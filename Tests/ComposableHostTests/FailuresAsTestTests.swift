import Composable
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

@testable import ComposableHost

/// `:test` of a session where actions raised. One typed that raised is sent in the test
/// expecting the failure; one an effect sent is received (its change rolled back), and its
/// failure expected around the call that ran the effect. It was left out before, with a
/// comment: the test's effect still sent it, it still raised, and the test failed.
@Suite struct FailuresAsTestTests {
  typealias Harness = ReplSessionTests.Harness

  static let feature = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("fixtures/boom/boom.lua")
  static let source = (try? String(contentsOf: feature, encoding: .utf8)) ?? ""
  static let generated = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Generated/BoomSessionTests.swift")

  @Test(arguments: [
    ["go"],
    ["boom"],
    ["later", ":advance 1"],
    ["later", ":advance 0.5", "go", ":advance 0.5"],
    ["chain", "draw", "boom", "draw"],
    ["draw", "go", "draw", "later", "later", ":advance 2", "draw"],
    ["go", ":undo", "go", "boom", ":goto 0", "chain"],
    // Two failures with different messages in one call; in one advance; an address.
    ["two"],
    ["two_later", ":advance 1"],
    ["two_later", "go", ":advance 1", "two"],
    ["addr", "go", "addr"],
    // An effect's own failure (an effect.run coroutine that raised), at once and later.
    ["coro"],
    ["coro", "go", "coro"],
    ["coro_later", ":advance 1"],
    ["coro_later"],
    ["coro_later", ":advance 0.5", "go", ":advance 0.5", "go"],
    // Undone: an action an effect sent at once that raised still raises in the test; one that
    // came later does not come.
    ["go", ":undo"],
    ["later", ":advance 1", ":undo"],
    ["draw", "go", ":undo", ":undo", ":redo"],
  ])
  func aSessionWhereActionsRaisedBecomesATestThatPasses(_ lines: [String]) async throws {
    let repl = try Harness(source: Self.source)
    for line in lines { await repl.type(line) }
    let test = repl.file.deletingLastPathComponent().appendingPathComponent("counter_test.lua")
    let said = await repl.type(":test \(test.path)").0
    let text = (try? String(contentsOf: test, encoding: .utf8)) ?? ""
    #expect(said.contains("; it passes (composable test "), "\(said)\n\(text)")
    #expect(!text.contains("left out"), "\(text)")
  }

  /// In a session whose clock runs, an action `effect.send` sent comes a millisecond or so
  /// after its send, and the plan advances the clock between; the test's store reduces it in
  /// the send's own call: the failure is expected around both.
  @Test func aFailureOfAnActionSentAtOnceIsExpectedAroundItsSend() async throws {
    let recording = SessionRecording(
      feature: "boom.lua", code: "fnv1a64:0", env: [:], initialState: ["n": 0, "ids": [:]],
      actions: [
        RecordedAction(action: ["type": "go"], fromEffect: false, time: 0.5004),
        RecordedAction(action: ["type": "boom"], fromEffect: true, time: 0.5016),
      ])
    let plan = try SessionTestPlan(
      recording: recording, exchanges: [], feature: Self.feature, inFlight: [])
    let text = try LuaTestWriter.text(plan, name: "boom")
    #expect(text.contains("    store:advance(0.0012)"), "\(text)")  // to the microsecond
    let results = await LuaTestRunner().run(
      source: text, name: "boom_test.lua", directory: Self.feature.deletingLastPathComponent())
    #expect(results.count == 1 && results.first?.outcome == .passed, "\(results)\n\(text)")
  }

  /// The failure is expected where it happens: a test that expects it elsewhere, or whose
  /// reducer no longer raises, fails.
  @Test func aFailureThatNoLongerHappensFailsTheTest() async throws {
    let repl = try Harness(source: Self.source)
    await repl.type("later", ":advance 1")
    let test = repl.file.deletingLastPathComponent().appendingPathComponent("counter_test.lua")
    #expect(await repl.type(":test \(test.path)").0.contains("; it passes"))
    let fixed = Self.source.replacingOccurrences(
      of: "error(\"boom went the action (50% [of it])\")", with: "")
    #expect(fixed != Self.source)
    try fixed.write(to: repl.file, atomically: true, encoding: .utf8)
    let results = await LuaTestRunner().run(
      source: try String(contentsOf: test, encoding: .utf8), name: "counter_test.lua",
      directory: test.deletingLastPathComponent())
    #expect(results.count == 1 && results.first?.outcome != .passed)
  }

  /// The Swift test of such a session expects the failures with `withKnownIssue` (it compiles
  /// and passes in `Generated/`). Not those of actions an advance's effects send: Swift's
  /// `withKnownIssue` does not see the issues of the effects' tasks (the test says so there).
  @Test func theSwiftTestOfASessionWhereActionsRaisedIsTheOneThatRuns() async throws {
    var dependencies = DependencyValues.live
    dependencies.uuid = .incrementing
    let repl = try Harness(dependencies: dependencies, file: Self.feature)
    await repl.type("go", "draw", "boom", "draw")
    let plan = try SessionTestPlan(
      recording: await repl.session.recording(), exchanges: repl.session.exchanges.all,
      feature: Self.feature, inFlight: [])
    let text = try SwiftTestWriter.text(plan, name: "BoomSessionTests", testFile: Self.generated)
    if ProcessInfo.processInfo.environment["REGENERATE_SESSION_TESTS"] == "1" {
      try Data(text.utf8).write(to: Self.generated)
    }
    #expect(text.contains("await withKnownIssue {"), "\(text)")
    await repl.type("later", ":advance 1")
    let later = try SessionTestPlan(
      recording: await repl.session.recording(), exchanges: [], feature: Self.feature,
      inFlight: [])
    let laterText = try SwiftTestWriter.text(
      later, name: "BoomSessionTests", testFile: Self.generated)
    #expect(laterText.contains("this test cannot expect that failure, and fails there"))
    let committed = (try? String(contentsOf: Self.generated, encoding: .utf8)) ?? ""
    #expect(text == committed)
  }
}
