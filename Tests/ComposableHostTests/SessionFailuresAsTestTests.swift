import Composable
import ComposableHost
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// A session whose effects failed (a list of a folder that is not there, a remove of a missing
/// file, a request to a closed port) becomes a test that passes: the test's fakes fail them as
/// they failed, in the same words.
@Suite struct SessionFailuresAsTestTests {
  static let source = """
    local effect = require("composable.effect")
    local F = {}
    function F.initial_state() return { answers = {} } end
    function F.reduce(state, action)
      local t = action.type
      if t == "fr" then return effect.file.read{ path = "missing.txt", response = "got" } end
      if t == "fl" then return effect.file.list{ path = "nodir", response = "got" } end
      if t == "rm" then return effect.file.remove{ path = "nofile", response = "got" } end
      if t == "h" then return effect.http{ url = "http://127.0.0.1:1/", response = "got" } end
      if t == "got" then
        state.answers[#state.answers + 1] = { ok = action.ok, error = action.error }
      end
    end
    return F
    """

  @Test func failedFileAndHTTPAnswersAreFailedAgainInTheWrittenTest() async throws {
    let data = try makeTemporaryDirectory("session-failures-data")
    defer { try? FileManager.default.removeItem(at: data) }
    var dependencies = DependencyValues.live
    dependencies.files = .live(root: data)
    let repl = try ReplSessionTests.Harness(source: Self.source, dependencies: dependencies)
    for line in ["fr", "fl", "rm", "h"] {
      let before = repl.session.timeline.count
      await repl.type(line)
      for _ in 0..<6000 where repl.session.timeline.count < before + 2 {
        try await Task.sleep(for: .milliseconds(10))
      }
      await repl.session.settle()
    }
    let answers = try repl.session.feature.evaluate("state.answers")[0]
    let errors = answers.tableValue?.sequence.map { $0["error"] } ?? []
    #expect(errors.count == 4, "\(answers)")
    #expect(errors.dropFirst().allSatisfy { $0 != .nil }, "\(answers)")
    let test = repl.file.deletingLastPathComponent().appendingPathComponent("failures_test.lua")
    let written = await repl.type(":test \(test.path)").0
    #expect(written.contains("it passes"), "\(written)")
    let run = await LuaTestRunner().run(file: test)
    #expect(run.map(\.outcome) == [.passed], "\(run)")
  }
}
