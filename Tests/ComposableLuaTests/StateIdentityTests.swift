import ComposableLua
import LuaKit
import Testing

/// A state table keeps its identity for feature code whatever an action's size: a table kept
/// in a module local is the one the state hands out, before and after an action that sweeps
/// the state (gives more than 4,096 tables a proxy, after which the state forgets them).
@Suite struct StateIdentityTests {
  static let source = """
    local kept
    return {
      initial_state = function()
        local items = {}
        for i = 1, 5000 do items[i] = { v = 0 } end
        return { list = { 1, 2, 3, 4 }, items = items }
      end,
      reduce = function(state, action)
        local t = action.type
        if t == "keep" then
          kept = state.list
        elseif t == "sweep" then
          for i, item in ipairs(state.items) do item.v = i end
        elseif t == "check" then
          state.same = rawequal(kept, state.list) and kept == state.list
          -- One table: the move overlaps itself and goes backwards, as Lua's does.
          table.move(kept, 1, 3, 2, state.list)
        end
      end,
    }
    """

  static func send(_ feature: LuaFeature, _ type: String) throws {
    try feature.step(.string(LuaString(type)))
  }

  @Test func aKeptTableIsTheStatesAfterASweep() throws {
    let feature = try LuaFeature(source: Self.source, file: "identity.lua")
    try Self.send(feature, "keep")
    try Self.send(feature, "sweep")
    try Self.send(feature, "sweep")
    _ = feature.memoryInUse()  // a full collection between: the kept proxy is still held
    try Self.send(feature, "check")
    let state = try feature.state()
    #expect(state.same == true)
    #expect(state.list == [1, 1, 2, 3])
  }
}
