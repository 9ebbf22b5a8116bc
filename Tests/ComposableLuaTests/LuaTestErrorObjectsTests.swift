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
}
