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

  /// A value nested 8,000 levels deep is described to 64 levels, then `{…}`: its failure says
  /// what failed, where it did. Every level's indentation was a string of its own, and the
  /// message was lost to "not enough memory" (an attacker's finding).
  @Test func aDeepValueIsDescribedToItsDepth() async throws {
    let directory = try makeTemporaryDirectory("describe-deep")
    defer { try? FileManager.default.removeItem(at: directory) }
    let source = """
      it("compares", function()
        local a = {}
        for _ = 1, 8000 do a = { a } end
        assert.equal(1, a)
      end)
      """
    let results = await LuaTestRunner().run(
      source: source, name: "deep_test.lua", directory: directory)
    guard case let .failed(messages)? = results.first?.outcome else {
      Issue.record("the test did not fail: \(results.map(\.outcome))")
      return
    }
    let message = messages.joined(separator: "\n")
    #expect(
      message.contains("deep_test.lua:4: Expected objects to be equal."), "\(message.prefix(300))")
    #expect(message.contains(String(repeating: " ", count: 128) + "[1] = {…}\n"))
    #expect(!message.contains("not enough memory"))
  }

  /// Two values that differ only below what is described read alike: the failure says they
  /// differ deeper (an attacker saw two equal-looking sides).
  @Test func valuesAlikeAsDescribedSaySo() async throws {
    let directory = try makeTemporaryDirectory("describe-alike")
    defer { try? FileManager.default.removeItem(at: directory) }
    let source = """
      it("compares", function()
        local function chain(leaf)
          local t = { leaf }
          for _ = 1, 100 do t = { t } end
          return t
        end
        assert.same(chain(1), chain(2))
      end)
      """
    let results = await LuaTestRunner().run(
      source: source, name: "alike_test.lua", directory: directory)
    guard case let .failed(messages)? = results.first?.outcome else {
      Issue.record("the test did not fail: \(results.map(\.outcome))")
      return
    }
    #expect(
      messages.joined().contains(
        "(They differ deeper than the 64 levels described, or past the bytes shown.)"))
  }
}
