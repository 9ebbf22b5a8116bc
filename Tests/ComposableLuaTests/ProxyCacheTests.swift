import ComposableLua
import Foundation
import LuaKit
import Testing

/// The proxies a state's tables keep for speed are dropped after an action that swept the state:
/// their memory comes back, and a proxy that feature code kept from before still works, through
/// the journal, and is given back as itself by a rollback.
@Suite struct ProxyCacheTests {
  static let source = """
    local kept, given_back
    return {
      initial_state = function()
        local todos = {}
        for id = 1, 10000 do todos[id] = { id = id, title = "t" .. id, done = false } end
        return { todos = todos, a = { v = 0 }, n = 0 }
      end,
      reduce = function(state, action)
        local t = action.type
        if t == "touch_all" then
          for _, todo in ipairs(state.todos) do todo.done = not todo.done end
        elseif t == "keep" then
          kept = { todo = state.todos[5], a = state.a }
          for _, todo in ipairs(state.todos) do todo.done = not todo.done end  -- a sweep
        elseif t == "same_within_an_action" then
          state.n = (state.todos[5] == state.todos[5]) and 1 or 0
        elseif t == "write_kept_then_fail" then
          kept.todo.done = "written"
          error("undo me")
        elseif t == "write_kept" then
          kept.todo.done = "kept"
          state.n = (kept.todo.done == state.todos[5].done) and 2 or 0
        elseif t == "store_kept_then_fail" then
          given_back = { inner = kept.a }
          state.b = given_back
          error("give it back")
        elseif t == "check_given_back" then
          assert(getmetatable(given_back) == nil, "given back plain")
          assert(rawequal(given_back.inner, kept.a), "as the proxy it was stored as")
          assert(not pcall(setmetatable, given_back.inner, {}), "a proxy, not a state table")
          state.n = 3
        elseif t == "write_around_then_fail" then
          given_back.inner.v = "around"
          error("a real table would keep this write")
        end
      end,
    }
    """

  static func makeFeature() throws -> LuaFeature {
    try LuaFeature(
      source: source, file: "proxies.lua", limits: LuaLimits(memory: nil, instructions: nil))
  }

  static func send(_ feature: LuaFeature, _ type: String) throws(LuaFeatureError) {
    try feature.step(.string(LuaString(type)))
  }

  @Test func aSweepLeavesNoProxiesBehind() throws {
    let feature = try Self.makeFeature()
    let before = feature.memoryInUse()
    try Self.send(feature, "touch_all")
    let after = feature.memoryInUse()
    // 10,000 proxies kept would hold over 800 KB. What stays is about 10 bytes a todo: the
    // tables whose hash part had no free node left for the link grew once (Lua's free-node
    // search only moves down), and keep that size.
    #expect(after - before < 256 << 10, "held \(after - before) bytes more after the sweep")
    try Self.send(feature, "touch_all")
    #expect(feature.memoryInUse() - after < 4 << 10, "a second sweep adds nothing")
    try Self.send(feature, "same_within_an_action")
    #expect(try feature.evaluate("state.n") == [1])
  }

  @Test func aProxyKeptFromBeforeASweepStillWritesThroughTheJournal() throws {
    let feature = try Self.makeFeature()
    try Self.send(feature, "keep")
    #expect(throws: LuaFeatureError.self) { try Self.send(feature, "write_kept_then_fail") }
    #expect(try feature.evaluate("state.todos[5].done") == [true])
    try Self.send(feature, "write_kept")
    #expect(try feature.evaluate("state.todos[5].done, state.n") == ["kept", 2])
  }

  /// A table stored in the state holds a kept proxy whose link was dropped; the store fails, and
  /// the rollback gives the table back holding that proxy, never the state's own table (which
  /// would let feature code write around the journal).
  @Test func aRollbackGivesBackAKeptProxyNeverAStateTable() throws {
    let feature = try Self.makeFeature()
    try Self.send(feature, "keep")
    #expect(throws: LuaFeatureError.self) { try Self.send(feature, "store_kept_then_fail") }
    try Self.send(feature, "check_given_back")
    #expect(try feature.evaluate("state.n, state.b") == [3, .nil])
    #expect(throws: LuaFeatureError.self) { try Self.send(feature, "write_around_then_fail") }
    #expect(try feature.evaluate("state.a.v") == [0])
  }
}
