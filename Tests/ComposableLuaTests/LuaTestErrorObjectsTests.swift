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
    #expect(
      failures["errors table"]?.hasPrefix("{ code = 1 }\nstack traceback:") == true, "\(failures)")
    #expect(failures["errors index"]?.hasPrefix("{ a = 1 }\n") == true, "\(failures)")
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
    let (failures, passed) = await Self.outcomes(of: file)
    #expect(passed == ["assert caught"], "\(failures)")
    #expect(
      failures["assert table"]?.hasPrefix("{ code = 1 }\nstack traceback:") == true,
      "\(failures)")
    #expect(failures["assert number"]?.hasPrefix("42\nstack traceback:") == true, "\(failures)")
    #expect(
      failures["assert string"]?.hasSuffix("/assert_test.lua:11: words") == true, "\(failures)")
    #expect(
      failures["assert none"]?.hasSuffix("/assert_test.lua:12: assertion failed!") == true,
      "\(failures)")
    #expect(failures.values.allSatisfy { !$0.contains("assertion = true") }, "\(failures)")
  }

  /// What the runner says of a test's errors and assertions, where a helper found it otherwise
  /// than Lua's or than the report of `error(t)`: an assertion in the function given to `send`
  /// printed the runner's own table field by field; `assert` returned one value more and took no
  /// argument; `assert.error` matched a table's address, and failed on a number message; a
  /// test's own table with an `assertion` field was taken for the runner's; a table of 50,000
  /// fields or 10,000 levels ran the test out of instructions or memory to be described.
  @Test func assertionsAndErrorsAreSaidAsLuaAndTheReportsSayThem() async throws {
    let directory = try makeTemporaryDirectory("lua-test-errors")
    try """
    return {
      initial_state = function() return { n = 0 } end,
      reduce = function(state) state.n = state.n + 1 end,
    }
    """.write(
      to: directory.appendingPathComponent("count.lua"), atomically: false, encoding: .utf8)
    let file = directory.appendingPathComponent("said_test.lua")
    try """
    local TestStore = require("composable.test").TestStore
    describe("said", function()
      it("update", function()
        local store = TestStore.new{ feature = require("count") }
        store:send("go", function(s) assert(false, "in the update") end)
      end)
      it("arity", function()
        assert.equal(1, select("#", assert(1)))
        assert.equal(3, select("#", assert(1, nil, nil)))
        local ok, err = pcall(assert)
        assert.equal(false, ok)
        assert.truthy(err:find("bad argument #1 to 'assert' %(value expected%)"))
        local ok2, err2 = pcall(assert, false, nil)
        assert.equal(false, ok2)
        assert.equal(nil, err2)
      end)
      it("error patterns", function()
        assert.error(function() error({ code = 404 }) end, "code = 404")
        assert.error(function() error({ message = 5 }) end, "message = 5")
        assert.error(function()
          error(setmetatable({ a = 1 }, { __index = function() error("INDEX RAN") end }))
        end, "a = 1")
        assert.error(function() assert(false, "words") end, "^words$")
      end)
      it("own assertion field", function() error({ assertion = true, message = "mine" }) end)
      it("table messages", function()
        local ok, failure = pcall(assert.equal, 1, 2, { why = "x" })
        assert.equal("composable.test failure", getmetatable(failure))
        assert.truthy(not pcall(setmetatable, failure, nil))
        assert.truthy(false, { code = 404 })
      end)
      it("wide", function()
        local t = {} for i = 1, 50000 do t["k" .. i] = i end
        error(t)
      end)
      it("deep", function()
        local t = {} local c = t for _ = 1, 10000 do c.n = {} c = c.n end
        error(t)
      end)
    end)
    """.write(to: file, atomically: false, encoding: .utf8)
    let (failures, passed) = await Self.outcomes(of: file)
    #expect(passed == ["said arity", "said error patterns"], "\(failures)")
    let update = failures["said update"] ?? ""
    #expect(update.contains("said_test.lua:5: in the update"), "\(update)")
    #expect(!update.contains("file ="), "\(update)")
    #expect(
      failures["said own assertion field"]?.hasPrefix(
        #"{ assertion = true, message = "mine" }"# + "\nstack traceback:") == true,
      "\(failures)")
    #expect(
      failures["said table messages"]?.hasSuffix("said_test.lua:30: { code = 404 }") == true,
      "\(failures["said table messages"] ?? "")")
    #expect(
      failures["said wide"]?.hasPrefix("{ k1 = 1, k10 = 10, k100 = 100,") == true,
      "\(failures["said wide"] ?? "")")
    #expect(
      failures["said deep"]?.hasPrefix("{ n = { n = { n = ") == true,
      "\(failures["said deep"] ?? "")")
  }

  /// A test's own `coroutine.yield` in its body raises as Lua's does outside a coroutine: it
  /// reached the host as one of the runner's requests, and a forged one crashed the whole run
  /// (an attacker's finding). A coroutine of the test's own yields as ever.
  @Test func aYieldInATestsBodyIsNoRequest() async throws {
    let directory = try makeTemporaryDirectory("lua-test-errors")
    let file = directory.appendingPathComponent("yield_test.lua")
    try """
    describe("yield", function()
      it("forged", function() coroutine.yield({ op = "expect_failure", mark = -5 }) end)
      it("bare", function() coroutine.yield() end)
      it("own", function()
        local co = coroutine.wrap(function() coroutine.yield(1) return 2 end)
        assert.equal(1, co())
        assert.equal(2, co())
      end)
    end)
    """.write(to: file, atomically: false, encoding: .utf8)
    let (failures, passed) = await Self.outcomes(of: file)
    #expect(passed == ["yield own"], "\(failures)")
    for name in ["yield forged", "yield bare"] {
      #expect(
        failures[name]?.hasPrefix("attempt to yield from outside a coroutine\nstack traceback:")
          == true, "\(failures)")
    }
  }

  /// What running the test file said: each failed test's messages, joined, by name, and the
  /// names of the others.
  static func outcomes(of file: URL) async -> (failures: [String: String], passed: [String]) {
    var failures: [String: String] = [:], passed: [String] = []
    for result in await LuaTestRunner().run(file: file) {
      switch result.outcome {
      case let .failed(messages): failures[result.name] = messages.joined(separator: "\n")
      default: passed.append(result.name)
      }
    }
    return (failures, passed)
  }

  /// A function given to `receive` that raises fails the test with its error, at its line: it
  /// was taken as "no match" alone, its message never shown (an attacker's finding).
  @Test func aReceivePredicateThatRaisesSaysSo() async throws {
    let directory = try makeTemporaryDirectory("lua-test-errors")
    try """
    local effect = require("composable.effect")
    return {
      initial_state = function() return { n = 0 } end,
      reduce = function(state, action)
        state.n = state.n + 1
        if action.type == "go" then return effect.send("done") end
      end,
    }
    """.write(
      to: directory.appendingPathComponent("echo.lua"), atomically: false, encoding: .utf8)
    let file = directory.appendingPathComponent("pick_test.lua")
    try """
    local TestStore = require("composable.test").TestStore
    describe("pick", function()
      it("raises", function()
        local store = TestStore.new{ feature = require("echo") }
        store:send("go", function(s) s.n = 1 end)
        store:receive(function(action) error("PICKED WRONG") end)
      end)
    end)
    """.write(to: file, atomically: false, encoding: .utf8)
    let (failures, _) = await Self.outcomes(of: file)
    let raised = failures["pick raises"] ?? ""
    #expect(raised.contains("receive: the function given to pick the action raised: "), "\(raised)")
    #expect(raised.contains("PICKED WRONG"), "\(raised)")
  }
}
