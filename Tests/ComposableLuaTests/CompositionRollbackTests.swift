import ComposableLua
import LuaKit
import Testing

/// The library's bookkeeping rolls back with the state: a failed action that removed an
/// element, or a child, does not make the library forget that its effects are running.
@Suite struct CompositionRollbackTests {
  static let source = """
    local composable = require("composable")
    local effect = composable.effect
    local Child = { reduce = function(state, action)
      if action.type == "start" then return effect.every(1, "tick") end
    end }
    local function parent(state, action)
      if action.type == "remove" or action.type == "remove_then_fail" then
        table.remove(state.todos, 1)
        state.detail = nil
      end
    end
    local function failer(state, action)
      if action.type == "remove_then_fail" then error("fails after the removal") end
    end
    return {
      initial_state = function() return { todos = { { id = 1 } }, detail = { n = 1 } } end,
      reduce = composable.combine(
        parent,
        composable.for_each{ state = "todos", action = "todo", reducer = Child },
        composable.if_let{ state = "detail", action = "detail", reducer = Child },
        failer),
    }
    """

  /// The effect the reducer returned for `action`, as Lua built it.
  private func effect(_ feature: LuaFeature, _ action: LuaValue) throws -> LuaValue {
    try feature.step(action).returned
  }

  @Test func aFailedRemovalLeavesTheEffectsKnownSoTheNextRemovalCancelsThem() throws {
    let feature = try LuaFeature(source: Self.source, file: "list.lua")
    _ = try effect(feature, ["type": "todo", "id": 1, "action": "start"])
    _ = try effect(feature, ["type": "detail", "action": "start"])
    let before = try feature.state()
    #expect(throws: LuaFeatureError.self) { try effect(feature, "remove_then_fail") }
    #expect(try feature.state() == before)
    let removal = try effect(feature, "remove")
    #expect(removal == [
      "kind": "merge",
      "effects": [
        ["kind": "cancel", "id": ["scope": ["for_each": "todos", "element": 1]]],
        ["kind": "cancel", "id": ["scope": ["if_let": "detail"]]],
      ],
    ])
  }

  @Test func outsideAHostTheLibraryRunsOnPlainTables() throws {
    // As busted runs it: the library's modules as given to tools, no journaled tables.
    let vm = try LuaVM()
    let modules = ComposableLuaLibrary.modules.merging(
      ["composable.journal": ComposableLuaLibrary.plainJournal]) { $1 }
    let sandbox = try vm.makeSandbox(.init(modules: LuaModuleTable(modules)))
    let results = try vm.evaluate("""
      local composable = require("composable")
      local Child = { reduce = function(state, action)
        if action.type == "start" then return composable.effect.every(1, "tick") end
      end }
      local reduce = composable.for_each{ state = "todos", action = "todo", reducer = Child }
      local state = { todos = { { id = 1 } } }
      reduce(state, { type = "todo", id = 1, action = "start" })
      state.todos[1] = nil
      return reduce(state, { type = "noop" })
      """, chunkName: "plain.lua", in: sandbox)
    #expect(results == [["kind": "cancel", "id": ["scope": ["for_each": "todos", "element": 1]]]])
  }
}
