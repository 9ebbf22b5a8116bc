import Composable
import ComposableLua
import LuaKit
import TestSupport
import Testing

/// Feature code written as an attacker would, against the two promises the rest stands on:
/// every action is a transaction, and nothing Lua can reach writes committed state around
/// the journal. Each test compares the whole state before and after, then shows that the next
/// action works.
@Suite struct IntegrityTests {
  static let source = """
    local saved, holder, leaked
    local M = {}
    function M.initial_state()
      return { count = 0, sub = { x = 1, list = { 1, 2, 3 } }, todos = { { id = 1, title = "a" } } }
    end
    function M.reduce(state, action)
      local t = action.type
      if t == "count" then
        state.count = state.count + 1
      elseif t == "hidden_keys" then
        -- next, rawget and rawset see only the data, never the keys linking tables to proxies.
        local keys = {}
        local k, v = next(state.sub)
        while k ~= nil do
          assert(type(k) == "string", "next gave a " .. type(k) .. " key")
          keys[#keys + 1] = k
          k, v = next(state.sub, k)
        end
        for key in pairs({ x = 1 }) do assert(type(key) == "string") end
        local raw_next = pairs({})
        assert(raw_next(state.sub) ~= nil and type(raw_next(state.sub)) == "string")
        state.keys = #keys
        return nil
      elseif t == "rawset_next_then_fail" then
        local k = next(state.sub)
        rawset(state.sub, k, string.rep("A", 64))
        rawset(state, next(state), "B")
        state.x = 1
        error("after the writes")
      elseif t == "write_through_next_then_fail" then
        local _, sub = next({ s = state.sub })
        local key, value = next(state.sub)
        while key ~= nil do
          if type(value) == "table" then value[1] = "changed" end
          key, value = next(state.sub, key)
        end
        sub.x = 42
        error("after the writes")
      elseif t == "store_holder" then
        holder = { list = state.sub.list, n = 1 }
        state.holder = holder
      elseif t == "write_holder_then_fail" then
        holder.n = 99
        holder.list[1] = "changed"
        error("after the writes")
      elseif t == "write_holder" then
        holder.n = 2
      elseif t == "save_sub" then
        saved = state.sub
      elseif t == "write_saved_then_fail" then
        saved.x = 99
        rawset(saved, "y", 100)
        error("after the writes")
      elseif t == "leak_to_effect" then
        leaked = state.sub
        return { kind = "run", fn = function(send)
          leaked.x = 123
        end }
      elseif t == "store_cycle_then_fail" then
        local a = { name = "a" }
        local b = { name = "b", a = a, sub = state.sub }
        a.b = b
        a.self = a
        state.cycle = a
        a.after = 1
        b.sub.x = 7
        error("after the writes")
      elseif t == "store_cycle" then
        local a = { name = "a" }
        a.self = a
        state.cycle = a
        state.cycle_is_same = state.cycle == a and a.self == a
        a.self = nil
      elseif t == "store_metatable" then
        state.odd = setmetatable({}, { __index = function() return 1 end })
      elseif t == "store_too_deep_in_pcall" then
        local deep = {}
        local node = deep
        for i = 1, 300 do node.next = { v = i } node = node.next end
        local ok, message = pcall(function() state.deep = deep end)
        assert(not ok and message:find("nested more than 200 levels deep"), message)
        -- Given back whole: plain, every level there.
        assert(getmetatable(deep) == nil)
        node = deep
        for i = 1, 300 do node = node.next assert(node.v == i and getmetatable(node) == nil) end
        holder = deep
        state.after = "committed"
      elseif t == "write_given_back" then
        holder.next.next.v = "changed"
        state.given_back = holder.next.next.v
      elseif t == "move_between_parents_then_fail" then
        local list = state.sub.list
        state.sub.list = nil
        state.moved = list
        table.insert(list, 4)
        error("after the writes")
      end
    end
    return M
    """

  static let initial: LuaValue = [
    "count": 0, "sub": ["x": 1, "list": [1, 2, 3]], "todos": [["id": 1, "title": "a"]],
  ]

  private func makeFeature() throws -> LuaFeature {
    try LuaFeature(source: Self.source, file: "attack.lua")
  }

  /// Sends `action`; returns its error, or nil.
  @discardableResult
  private func send(_ feature: LuaFeature, _ action: LuaValue) -> LuaFeatureError? {
    featureError { _ = try feature.step(action) }
  }

  /// `action` fails, the state is exactly what it was, and counting still works.
  private func expectFailsAndChangesNothing(
    _ feature: LuaFeature, _ action: LuaValue, message: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let before = try feature.state()
    let error = send(feature, action)
    guard case let .reduce(_, failure) = error else {
      Issue.record("expected the action to fail, got \(String(describing: error))",
        sourceLocation: sourceLocation)
      return
    }
    #expect(failure.message == message, sourceLocation: sourceLocation)
    #expect(try feature.state() == before, sourceLocation: sourceLocation)
    #expect(send(feature, "count") == nil, sourceLocation: sourceLocation)
    var counted = before
    counted.count = .integer((before.count.intValue ?? 0) + 1)
    #expect(try feature.state() == counted, sourceLocation: sourceLocation)
  }

  @Test func nextRawgetAndPairsNeverShowTheHiddenKeys() throws {
    let feature = try makeFeature()
    #expect(send(feature, "hidden_keys") == nil)
    #expect(try feature.state().keys == 2)
  }

  @Test func rawsetWithTheKeysNextGivesIsJournaled() throws {
    let feature = try makeFeature()
    try expectFailsAndChangesNothing(
      feature, "rawset_next_then_fail", message: "attack.lua:29: after the writes")
  }

  @Test func tablesReachedThroughNextAreProxies() throws {
    let feature = try makeFeature()
    try expectFailsAndChangesNothing(
      feature, "write_through_next_then_fail", message: "attack.lua:38: after the writes")
  }

  @Test func aPlainTableStoredInTheStateIsAdoptedSoOldReferencesAreJournaled() throws {
    let feature = try makeFeature()
    #expect(send(feature, "store_holder") == nil)
    try expectFailsAndChangesNothing(
      feature, "write_holder_then_fail", message: "attack.lua:45: after the writes")
    #expect(send(feature, "write_holder") == nil)
    #expect(try feature.state().holder == ["list": [1, 2, 3], "n": 2])
  }

  @Test func aStateTableKeptInAModuleLocalIsJournaledInLaterActions() throws {
    let feature = try makeFeature()
    #expect(send(feature, "save_sub") == nil)
    try expectFailsAndChangesNothing(
      feature, "write_saved_then_fail", message: "attack.lua:53: after the writes")
  }

  @Test func aStateTableWrittenOutsideReduceIsRefused() async throws {
    let feature = try makeFeature()
    let (store, errors) = storeCollectingErrors(feature)
    let before = try feature.state()
    await store.send("leak_to_effect").finish()
    #expect(errors.all.count == 1)
    #expect(errors.all.first?.description.hasPrefix("""
      an effect of { type = "leak_to_effect" } failed: attack.lua:57: state changes only in \
      reduce: send an action
      """) == true)
    #expect(try feature.state() == before)
    await store.send("count").finish()
    #expect(try feature.state().count == 1)
  }

  @Test func aStoredCycleAndItsAdoptionAreUndone() throws {
    let feature = try makeFeature()
    try expectFailsAndChangesNothing(
      feature, "store_cycle_then_fail", message: "attack.lua:67: after the writes")
    #expect(send(feature, "store_cycle") == nil)
    #expect(try feature.state().cycle_is_same == true)
    #expect(try feature.state().cycle == ["name": "a"])
  }

  @Test func aTableWithAMetatableCannotBeStored() throws {
    let feature = try makeFeature()
    try expectFailsAndChangesNothing(
      feature, "store_metatable",
      message: """
        attack.lua:75: a table with a metatable cannot be stored in the state (state is plain \
        data: tables, strings, numbers and booleans)
        """)
  }

  @Test func aTableThatCannotBeStoredIsGivenBackWholeEvenToAPcall() throws {
    let feature = try makeFeature()
    var expected = try feature.state()
    #expect(send(feature, "store_too_deep_in_pcall") == nil)
    expected.after = "committed"
    #expect(try feature.state() == expected)
    // The table stayed plain: writing it is not a state change, and needs no transaction.
    #expect(send(feature, "write_given_back") == nil)
    expected.given_back = "changed"
    #expect(try feature.state() == expected)
  }

  @Test func aTableMovedBetweenParentsIsUndone() throws {
    let feature = try makeFeature()
    try expectFailsAndChangesNothing(
      feature, "move_between_parents_then_fail", message: "attack.lua:96: after the writes")
  }

  @Test func aStateTooDeepToSnapshotFailsTheActionAndTheFeatureGoesOn() throws {
    // One level a write, a thousand writes: each store is allowed, the state they make is not.
    let feature = try LuaFeature(source: """
      return {
        initial_state = function() return { n = 0 } end,
        reduce = function(state, action)
          if action.type == "deepen" then
            local node = state
            for i = 1, 1000 do node.next = { i = i } node = node.next end
          else state.n = state.n + 1 end
        end,
      }
      """, file: "deep.lua")
    let error = send(feature, "deepen")
    #expect(
      error?.description.contains(
        "the state would be nested more than 200 levels deep, at state.next.next") == true,
      "\(String(describing: error))")
    #expect(try feature.state() == ["n": 0])
    #expect(send(feature, "count") == nil)
    #expect(try feature.state() == ["n": 1])
  }

  @Test func anActionThatFailsBeforeItsReducerRunsUndoesNothingCommitted() throws {
    let feature = try makeFeature()
    #expect(send(feature, "count") == nil)
    let other = try LuaVM()
    let foreign = try other.evaluate("return function() end")[0]
    let error = send(feature, ["type": "count", "f": foreign])
    guard case let .malformedAction(_, message) = error else {
      Issue.record("expected the action refused, got \(String(describing: error))")
      return
    }
    #expect(message.hasPrefix("action.f: "), "\(message)")
    #expect(try feature.state().count == 1)  // the first action stays
    #expect(send(feature, "count") == nil)
    #expect(try feature.state().count == 2)
  }
}
