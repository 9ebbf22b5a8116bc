import ComposableLua
import Foundation
import TestSupport
import Testing

/// A Lua test whose body raises a table says what the table holds, as a reducer's report does:
/// `tostring` gave its address (another each run) and ran its `__name`, and the runner's look
/// for its own assertion (`err.assertion`) ran the object's `__index` (a helper's findings).
@Suite struct LuaTestErrorObjectsTests {
  @Test func aRaisedTableIsDescribedAndRunsNothing() async throws {
    let directory = try makeTemporaryDirectory("lua-test-errors")
    let file = directory.appendingPathComponent("errors_test.lua")
    try """
    describe("errors", function()
      it("table", function() error({ code = 1 }) end)
      it("index", function()
        error(setmetatable({ a = 1 },
          { __index = function() error("INDEX RAN") end, __name = "EVIL" }))
      end)
      it("a string tostring", function() error(setmetatable({}, { __tostring = "x" })) end)
      it("tostring", function()
        error(setmetatable({}, { __tostring = function() return "own words" end }))
      end)
    end)
    """.write(to: file, atomically: false, encoding: .utf8)
    var failures: [String: String] = [:]
    for result in await LuaTestRunner().run(file: file) {
      if case let .failed(messages) = result.outcome {
        failures[result.name] = messages.joined(separator: "\n")
      }
    }
    #expect(failures["errors table"]?.contains("{\n  code = 1\n}") == true, "\(failures)")
    #expect(failures["errors index"]?.contains("{\n  a = 1\n}") == true, "\(failures)")
    #expect(failures["errors index"]?.contains("INDEX RAN") == false, "\(failures)")
    #expect(failures["errors index"]?.contains("EVIL") == false, "\(failures)")
    #expect(
      failures["errors a string tostring"]?.contains("(error object is a table value)") == true,
      "\(failures)")
    #expect(failures["errors tostring"]?.contains("own words") == true, "\(failures)")
    #expect(failures.values.allSatisfy { !$0.contains("table: 0x") }, "\(failures)")
  }

  /// `assert(v, message)` with a message that is no string raises the message, as Lua's own
  /// does: a `pcall` gets it, and the report says it as it says `error(t)`. The runner wrapped
  /// it as its own failure, and the report printed the wrapper's fields (`{ assertion = true,
  /// file = ..., message = { code = 1 } }`).
  @Test func anAssertWithATableMessageRaisesTheTable() async throws {
    let directory = try makeTemporaryDirectory("lua-test-errors")
    let file = directory.appendingPathComponent("assert_test.lua")
    try """
    describe("assert", function()
      it("table", function() assert(false, { code = 1 }) end)
      it("number", function() assert(nil, 42) end)
      it("caught", function()
        local t = { code = 2 }
        local ok, err = pcall(assert, false, t)
        assert.equal(false, ok)
        assert.equal(t, err)
        assert.equal(3, select("#", assert(1, t, 3)) )
      end)
      it("string", function() assert(false, "words") end)
      it("none", function() assert(false) end)
    end)
    """.write(to: file, atomically: false, encoding: .utf8)
    var failures: [String: String] = [:], passed: [String] = []
    for result in await LuaTestRunner().run(file: file) {
      switch result.outcome {
      case let .failed(messages): failures[result.name] = messages.joined(separator: "\n")
      default: passed.append(result.name)
      }
    }
    #expect(passed == ["assert caught"], "\(failures)")
    #expect(
      failures["assert table"]?.hasPrefix("{\n  code = 1\n}\nstack traceback:") == true,
      "\(failures)")
    #expect(failures["assert number"]?.hasPrefix("42\nstack traceback:") == true, "\(failures)")
    #expect(
      failures["assert string"]?.hasSuffix("/assert_test.lua:11: words") == true, "\(failures)")
    #expect(
      failures["assert none"]?.hasSuffix("/assert_test.lua:12: assertion failed!") == true,
      "\(failures)")
    #expect(failures.values.allSatisfy { !$0.contains("assertion = true") }, "\(failures)")
  }
}
