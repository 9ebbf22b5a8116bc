import Composable
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// A parent may remove a `for_each` element or dismiss an `if_let` child while handling that
/// child's own action, before or after the composition in `combine`: the child's effects end
/// with it, and no error is raised for an action whose child this very action removed. A
/// child's cancel ids are its own: element "b" stopping "timer" leaves element "a"'s.
@Suite struct CompositionOrderTests {
  static let template = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("fixtures/composition-order/rows.lua")

  static let orders = [
    "composable.combine(parent, children[1], children[2])",
    "composable.combine(children[1], children[2], parent)",
  ]

  static let tests = """
    local TestStore = require("composable.test").TestStore
    local function new() return TestStore.new{ feature = "feat", exhaustive = false } end
    it("a removed row's timer ends", function()
      local store = new()
      store:send({ type = "row", id = "a", action = "start" })
      assert.equal(1, #store:effects_in_flight())
      store:send({ type = "row", id = "a", action = "delete" })
      assert.same({}, store:effects_in_flight())
      assert.equal("b", store.state.rows[1].id)
    end)
    it("a dismissed sheet's timer ends", function()
      local store = new()
      store:send({ type = "sheet", action = "start" })
      assert.equal(1, #store:effects_in_flight())
      store:send({ type = "sheet", action = "close" })
      assert.same({}, store:effects_in_flight())
      assert.equal(nil, store.state.sheet)
    end)
    it("the whole list replaced ends every row's timer", function()
      local store = new()
      store:send({ type = "row", id = "a", action = "start" })
      store:send({ type = "row", id = "b", action = "start" })
      store:send("drop_all")
      assert.same({}, store:effects_in_flight())
    end)
    it("b's stop leaves a's timer", function()
      local store = new()
      store:send({ type = "row", id = "a", action = "start" })
      store:send({ type = "row", id = "b", action = "start" })
      store:send({ type = "row", id = "b", action = "stop" })
      assert.same({ 'effect.every with id { id = "timer", scope = { element = "a", for_each = "rows" } }' },
        store:effects_in_flight())
      store:advance(2)
      store:skip_received_actions()
      assert.equal(2, store.state.rows[1].ticks)
      assert.equal(nil, store.state.rows[2].ticks)
      store:skip_in_flight_effects()
    end)
    it("a row that never was is still an error", function()
      local store = new()
      expect_failure("for_each: an action arrived for rows element zzz, which is not there",
        function() store:send({ type = "row", id = "zzz", action = "start" }) end)
    end)
    it("a sheet action with no sheet all along is still an error", function()
      local store = TestStore.new{ feature = "feat", exhaustive = false, state = { rows = {} } }
      expect_failure("if_let: a child action arrived while state.sheet is nil", function()
        store:send({ type = "sheet", action = "start" })
      end)
    end)
    """

  @Test(arguments: orders)
  func theChildsEffectsEndWithItWhateverTheOrder(_ order: String) async throws {
    let directory = try makeTemporaryDirectory("composition-order")
    let source = try String(contentsOf: Self.template, encoding: .utf8)
      .replacingOccurrences(
        of: "F.reduce = composable.combine(parent, children[1], children[2])",
        with: "F.reduce = \(order)")
    try source.write(
      to: directory.appendingPathComponent("feat.lua"), atomically: true, encoding: .utf8)
    let results = await LuaTestRunner().run(
      source: Self.tests, name: "feat_test.lua", directory: directory)
    #expect(results.count == 6)
    for result in results {
      #expect(result.outcome == .passed, "\(result.name): \(result.outcome)")
    }
  }
}
