import ComposableLua
import Foundation
import Testing

/// The Lua tests in fixtures/failing fail on purpose; their report is pinned word for word.
@Suite struct FailingLuaTestsTests {
  static let file = repositoryRoot
    .appendingPathComponent("Tests/ComposableLuaTests/fixtures/failing/failing_test.lua")

  static let same = "\u{2007}"

  @Test func eachFailureNamesTheLuaLineAndSaysWhatHappened() async throws {
    let results = await LuaTestRunner().run(file: Self.file, output: { _ in })
    var failures: [String: [String]] = [:]
    for result in results {
      if case let .failed(messages) = result.outcome { failures[result.name] = messages }
    }
    #expect(failures["failing expects the wrong state"] == [
      """
      failing_test.lua:8: A state change does not match expectation.

      \(Self.same) [
      −   "clicks": 2
      +   "clicks": 1
      \(Self.same) ]

      (Expected: −, Actual: +)
      """,
    ])
    #expect(failures["failing waits for an action that never comes"] == [
      "failing_test.lua:13: Expected to receive an action, but received none after 1.0 seconds.",
    ])
    #expect(failures["failing leaves a received action unasserted"] == [
      """
      failing_test.lua:19: The store received 1 unexpected action.

      Unhandled actions:
        • [
            "type": "click"
          ]

      To fix, assert it with "store:receive", skip it with "store:skip_received_actions()", or \
      turn exhaustivity off with "exhaustive = false in TestStore.new".
      """,
    ])
    #expect(failures["failing leaves an effect running"] == [
      """
      failing_test.lua:24: An effect returned for this action is still running. It must \
      complete before the end of the test.

      To fix, wait for it to finish ("store:finish()" or "store:advance(seconds)"), cancel it \
      from the feature, or skip it with "store:skip_in_flight_effects()".
      """,
    ])
    let dependency = failures["failing uses a dependency it did not provide"] ?? []
    #expect(dependency.first == """
      failing_test.lua:29: A test used "http" without providing it: GET http://report.test/

      To fix, give the TestStore an http function: TestStore.new{ ..., http = function(request) \
      return { status = 200, body = "..." } end }
      """)
    #expect(results.count == 5)
    #expect(LuaTestReport.summary(results) == "0 passed, 5 failed")
  }
}
