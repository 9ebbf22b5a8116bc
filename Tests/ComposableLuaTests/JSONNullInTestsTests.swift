import ComposableLua
import Foundation
import TestSupport
import Testing

/// A feature whose state holds `json.null` (JSON decoded into it) is tested as any other: a
/// Lua test expects it, and gives it in a TestStore's starting state. Both failed ("userdata:
/// 0x0 belongs to another Lua VM", and a diff of two equal lines).
@Suite struct JSONNullInTestsTests {
  static let feature = """
    local json = require("composable.json")
    return {
      initial_state = function() return { v = 1 } end,
      reduce = function(state, action)
        if action.type == "load" then state.data = json.decode('{"a": null, "b": [1, null]}') end
        if action.type == "clear" then state.n = json.null end
        if action.type == "check" then state.seen = state.n == json.null end
      end,
    }
    """

  @Test func aLuaTestExpectsAndGivesNull() async throws {
    let folder = try makeTemporaryDirectory("json-null-test")
    defer { try? FileManager.default.removeItem(at: folder) }
    try Data(Self.feature.utf8).write(to: folder.appendingPathComponent("loader.lua"))
    let file = folder.appendingPathComponent("loader_test.lua")
    try Data(
      """
      local TestStore = require("composable.test").TestStore
      local json = require("composable.json")
      describe("null", function()
        it("is expected", function()
          local store = TestStore.new{ feature = "loader" }
          store:send("load", function(s) s.data = { a = json.null, b = { 1, json.null } } end)
          store:send("clear", function(s) s.n = json.null end)
          assert.equal(json.null, store.state.n)
          store:finish()
        end)
        it("is given", function()
          local store = TestStore.new{ feature = "loader", state = { v = 1, n = json.null } }
          store:send("check", function(s) s.seen = true end)
          store:finish()
        end)
        it("is no key of a given state, as no reducer could write one", function()
          expect_failure("the initial state cannot hold what is at state.k", function()
            TestStore.new{ feature = "loader", state = { v = 1, k = { [json.null] = "y" } } }
          end)
        end)
        it("differs from what is not null", function()
          local store = TestStore.new{ feature = "loader" }
          -- The diff names it as the test writes it.
          expect_failure("%+ n = json%.null", function()
            store:send("clear", function(s) s.n = false end)
          end)
        end)
        it("is named as json.null by assert.same", function()
          assert.error(function() assert.same({ n = false }, { n = json.null }) end, "n = json%.null")
        end)
      end)
      """.utf8
    ).write(to: file)
    let results = await LuaTestRunner().run(file: file)
    #expect(results.count == 5)
    for result in results {
      guard case let .failed(failures) = result.outcome else { continue }
      Issue.record("\(result.name): \(failures)")
    }
  }
}
