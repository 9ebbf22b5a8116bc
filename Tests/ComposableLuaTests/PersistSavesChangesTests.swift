import Composable
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// A save starts when an action changes what is saved, not whenever it writes: a write of the
/// value already there (`state.x = nil` when it is nil), or a change outside the field
/// `persist{ select }` names (a screen opened), starts none, so a test needs no `advance` for
/// it. A field `select` does not name in the initial state is an error at load.
@Suite struct PersistSavesChangesTests {
  static let feature = """
    local composable = require("composable")
    local F = {}
    F.persist = composable.persist{ path = "items.saved.lua", select = "items" }
    function F.initial_state()
      return { items = { { title = "a", n = 0, f = 0.0 } }, screen = "list", nav = { stack = {} } }
    end
    function F.reduce(state, action)
      local t = action.type
      if t == "nil_over_nil" then state.destination = nil
      elseif t == "same_string" then state.screen = state.screen
      elseif t == "same_item" then state.items[1] = state.items[1]
      elseif t == "same_number" then state.items[1].n = 0
      elseif t == "screen" then state.screen = "detail"
      elseif t == "push" then table.insert(state.nav.stack, "detail")
      elseif t == "nested_outside" then state.nav.stack.top = { "x" }
      elseif t == "rename" then state.items[1].title = "b"
      elseif t == "add" then state.items[#state.items + 1] = { title = "c" }
      elseif t == "float_for_int" then state.items[1].n = 0.0
      elseif t == "negative_zero" then state.items[1].f = -0.0
      elseif t == "through_alias" then state.nav.current = state.items[1]
      elseif t == "write_alias" then state.nav.current.title = "z"
      elseif t == "replace_items" then state.items = { { title = "a", n = 0, f = 0.0 } }
      elseif t == "deep_inside" then
        local node = state.items[1]
        for i = 1, 150 do node.next = { i = i } node = node.next end
      elseif t == "deep_outside" then
        local node = state.nav
        for i = 1, 150 do node.next = { i = i } node = node.next end
      end
    end
    return F
    """

  /// Runs a Lua test beside the feature: for each action of `actions`, sent after `before`,
  /// whether a save was in flight right after it.
  func savesStarted(
    by actions: [String], after before: [String] = [], feature: String = Self.feature
  ) async throws -> [String] {
    let directory = try makeTemporaryDirectory("persist-changes")
    try feature.write(
      to: directory.appendingPathComponent("items.lua"), atomically: true, encoding: .utf8)
    let list = actions.map { "\"\($0)\"" }.joined(separator: ", ")
    let setup = before.map { "store:send(\"\($0)\")  store:skip_in_flight_effects()" }
      .joined(separator: "\n      ")
    let source = """
      local TestStore = require("composable.test").TestStore
      it("saves", function()
        for _, action in ipairs({ \(list) }) do
          local store = TestStore.new{ feature = "items", files = {}, exhaustive = false }
          \(setup)
          store:send(action)
          local running = store:effects_in_flight()
          print(action .. ": " .. (running[1] or "none"))
          store:skip_in_flight_effects()
        end
      end)
      """
    let results = await LuaTestRunner().run(
      source: source, name: "items_test.lua", directory: directory)
    #expect(results.map(\.outcome) == [.passed], "\(results)")
    return results.first?.output ?? []
  }

  @Test func aWriteThatChangesNothingSavedStartsNoSave() async throws {
    let actions = [
      "nil_over_nil", "same_string", "same_item", "same_number", "screen", "push",
      "nested_outside", "deep_outside",
    ]
    #expect(try await savesStarted(by: actions) == actions.map { "\($0): none" })
  }

  /// Beside the saved field only scalars: every table of the state is the field's, so a nested
  /// change is known to be one without a walk of the field (the todos list and its filter).
  static let flatBeside = """
    local composable = require("composable")
    local F = {}
    F.persist = composable.persist{ path = "items.saved.lua", select = "items" }
    function F.initial_state()
      return { items = { { title = "a", n = 0 }, { title = "b", n = 1 } }, screen = "list" }
    end
    function F.reduce(state, action)
      local t = action.type
      if t == "rename" then state.items[2].title = "c"
      elseif t == "same_number" then state.items[1].n = 0
      elseif t == "screen" then state.screen = "detail"
      elseif t == "take_out_and_write" then
        local taken = table.remove(state.items, 1)
        taken.title = "q"
      end
    end
    return F
    """

  @Test func withOnlyScalarsBesideTheFieldANestedChangeIsOne() async throws {
    #expect(
      try await savesStarted(
        by: ["rename", "same_number", "screen", "take_out_and_write"], feature: Self.flatBeside)
        == [
          "rename: the save of items.saved.lua", "same_number: none", "screen: none",
          "take_out_and_write: the save of items.saved.lua",
        ])
  }

  /// The library's bookkeeping (which elements have effects running) is journaled beside the
  /// state: a reminder started and cancelled changes no todo, and starts no save.
  static let bookkeeping = """
    local composable = require("composable")
    local effect = composable.effect
    local F = {}
    F.persist = composable.persist{ path = "items.saved.lua", select = "items" }
    function F.initial_state() return { items = { { id = "a", title = "x" } }, filter = "all" } end
    local function Item(_, action)
      if action.type == "remind" then return effect.cancellable(effect.after(100, "ping"), "r")
      elseif action.type == "forget" then return effect.cancel("r") end
    end
    F.reduce = composable.for_each{ state = "items", action = "item", reducer = Item }
    return F
    """

  @Test func theLibrarysBookkeepingStartsNoSave() async throws {
    let directory = try makeTemporaryDirectory("persist-bookkeeping")
    try Self.bookkeeping.write(
      to: directory.appendingPathComponent("items.lua"), atomically: true, encoding: .utf8)
    let source = """
      local TestStore = require("composable.test").TestStore
      it("a reminder set and cancelled changes no item", function()
        local store = TestStore.new{ feature = "items", files = {} }
        store:send({ type = "item", id = "a", action = "remind" })
        store:send({ type = "item", id = "a", action = "forget" })
        assert.same({}, store:effects_in_flight())
        store:finish()
      end)
      """
    let results = await LuaTestRunner().run(
      source: source, name: "items_test.lua", directory: directory)
    #expect(results.map(\.outcome) == [.passed], "\(results)")
  }

  @Test func aChangeToWhatIsSavedStartsOne() async throws {
    let actions = [
      "rename", "add", "float_for_int", "negative_zero", "replace_items", "deep_inside",
    ]
    #expect(
      try await savesStarted(by: actions)
        == actions.map { "\($0): the save of items.saved.lua" })
  }

  /// A table reached both from the saved field and from outside it: a write through the
  /// outside path changes what is saved.
  @Test func aWriteThroughAnAliasOfASavedTableStartsOne() async throws {
    #expect(
      try await savesStarted(by: ["write_alias", "rename"], after: ["through_alias"])
        == ["write_alias: the save of items.saved.lua", "rename: the save of items.saved.lua"])
  }

  /// Below a deep change outside the saved field, one deep inside it is still seen.
  @Test func aDeepChangeInsideAfterOneOutsideStartsOne() async throws {
    #expect(
      try await savesStarted(by: ["deep_outside", "rename"], after: ["deep_outside"])
        == ["deep_outside: none", "rename: the save of items.saved.lua"])
  }

  @Test(arguments: [
    ("\"itemz\"", #"persist.select = "itemz": the initial state has no such field (its fields: items, nav, screen). To fix, name a field initial_state() returns"#),
    ("\"items.title\"", #"persist.select = "items.title" is a path; it names one field of the state. To fix, keep what is saved under one field (select = "items")"#),
    ("5", "items.lua:3: persist: select must be the name of a state field, got number"),
  ])
  func aSelectThatNamesNoFieldIsRefusedAtLoad(_ select: String, _ message: String) throws {
    let source = Self.feature.replacingOccurrences(
      of: #"select = "items""#, with: "select = \(select)")
    #expect {
      try LuaFeature(source: source, file: "items.lua")
    } throws: { error in
      // The first line: a Lua error goes on with its traceback.
      (error as? LuaFeatureError)?.description.split(separator: "\n").first
        == "items.lua did not load: \(message)"[...]
        || { Issue.record("\(error)"); return false }()
    }
  }
}
