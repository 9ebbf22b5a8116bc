import ComposableLua
import ComposableLuaTesting
import Foundation
import Testing

/// A TestStore's failure is a Swift Testing issue in a test target that depends on
/// ComposableLuaTesting: without IssueReportingTestSupport linked it would be a printed warning,
/// and a wrong expectation would pass.
@Test func aWrongExpectationFailsTheTest() async throws {
  let feature = FileManager.default.temporaryDirectory
    .appendingPathComponent("counter-\(UUID().uuidString).lua")
  try """
    return {
      initial_state = function() return { count = 0 } end,
      reduce = function(state) state.count = state.count + 1 end,
    }
    """.write(to: feature, atomically: true, encoding: .utf8)
  defer { try? FileManager.default.removeItem(at: feature) }
  let store = try TestStore(feature: feature.path)
  await withKnownIssue {
    await store.send("increment") { $0.count = 2 }
  }
  await store.send("increment") { $0.count = 2 }
}
