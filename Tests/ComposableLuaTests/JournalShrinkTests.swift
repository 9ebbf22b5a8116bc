import ComposableLua
import Foundation
import LuaKit
import Testing

/// After an action that wrote a great deal, the journal is a new, small table: the memory goes
/// back, and every later transaction still journals, rolls back and iterates as before (the
/// proxies' metamethods hold the journal too, and must hold the new one).
@Suite struct JournalShrinkTests {
  static let source = """
    -- The `next` that pairs over the state gave, kept across actions by the module.
    local saved_next
    return {
      initial_state = function()
        local todos = {}
        for id = 1, 20000 do todos[id] = { id = id, done = false } end
        return { todos = todos, n = 0 }
      end,
      reduce = function(state, action)
        if action.type == "touch_all" then
          for _, todo in ipairs(state.todos) do todo.done = not todo.done end
        elseif action.type == "touch_all_then_fail" then
          for _, todo in ipairs(state.todos) do todo.done = not todo.done end
          state.n = 99
          error("half way")
        elseif action.type == "count_done" then
          local done = 0
          for _, todo in pairs(state.todos) do if todo.done then done = done + 1 end end
          state.n = done
          saved_next = saved_next or pairs(state.todos)
        elseif action.type == "count_with_saved_next" then
          local done, key, todo = 0, saved_next(state.todos, nil)
          while key do
            if todo.done then done = done + 1 end
            key, todo = saved_next(state.todos, key)
          end
          state.n = done
        end
      end,
    }
    """

  @Test func aLargeActionLeavesNoLargeJournalAndLaterActionsStillRollBack() throws {
    let feature = try LuaFeature(
      source: Self.source, file: "big.lua", limits: LuaLimits(memory: nil, instructions: nil))
    // Reading every todo gives each its proxy; what a large write adds after that is the
    // journal's: 20,000 writes, three slots each, about 1 MB if the table kept its size.
    try feature.step(["type": "count_done"])
    let before = feature.memoryInUse()
    try feature.step(["type": "touch_all"])
    let after = feature.memoryInUse()
    #expect(after - before < 64 << 10, "held \(after - before) bytes more after the action")

    // A large action that fails is undone in full: the writes went into the journal the
    // rollback reads.
    #expect(throws: LuaFeatureError.self) {
      try feature.step(["type": "touch_all_then_fail"])
    }
    #expect(try feature.evaluate("state.n, state.todos[1].done, state.todos[20000].done")
      == [0, true, true])
    // And again after that, small and large, with pairs through the proxies.
    try feature.step(["type": "count_done"])
    #expect(try feature.evaluate("state.n") == [20000])
    try feature.step(["type": "touch_all"])
    #expect(throws: LuaFeatureError.self) {
      try feature.step(["type": "touch_all_then_fail"])
    }
    try feature.step(["type": "count_done"])
    #expect(try feature.evaluate("state.n") == [0])
    // The `next` a reducer kept from before the journal was replaced still walks the state.
    try feature.step(["type": "touch_all"])
    try feature.step(["type": "count_with_saved_next"])
    #expect(try feature.evaluate("state.n") == [20000])
  }
}
