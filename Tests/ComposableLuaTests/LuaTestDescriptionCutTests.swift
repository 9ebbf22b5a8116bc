import ComposableLua
import Foundation
import TestSupport
import Testing

/// A Lua test's failure describes values cut as the host cuts them (`LuaText`): at 65,536
/// bytes with `… N more bytes`, but whole when what is past the limit is no longer than that.
@Suite struct LuaTestDescriptionCutTests {
  /// The failure message of `assert.equal(string.rep("a", count), "b")`.
  func failure(describing count: Int) async throws -> String {
    let directory = try makeTemporaryDirectory("describe-cut")
    defer { try? FileManager.default.removeItem(at: directory) }
    let source = """
      it("compares", function() assert.equal(string.rep("a", \(count)), "b") end)
      """
    let results = await LuaTestRunner().run(
      source: source, name: "cut_test.lua", directory: directory)
    guard case let .failed(messages)? = results.first?.outcome else {
      Issue.record("the test did not fail: \(results.map(\.outcome))")
      return ""
    }
    return messages.joined(separator: "\n")
  }

  /// Quoted, the string takes `count + 2` bytes: 2 past the limit is shown whole.
  @Test func twoBytesPastTheLimitAreShown() async throws {
    let message = try await failure(describing: 65_536)
    #expect(message.hasSuffix("Expected:\n\"" + String(repeating: "a", count: 65_536) + "\""))
    #expect(!message.contains("more bytes"))
  }

  @Test func aHundredAndTwoBytesPastTheLimitAreCounted() async throws {
    let message = try await failure(describing: 65_636)
    #expect(
      message.hasSuffix(
        "Expected:\n\"" + String(repeating: "a", count: 65_535) + "… 102 more bytes"))
  }
}
