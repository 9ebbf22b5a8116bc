import ComposableLua
import LuaKit
import TestSupport
import Testing

/// table.sort, table.insert, table.remove and table.move inside one table move a state's
/// elements within its array, and skip the proof of the state's shape for those moves only: a
/// comparator's own writes, the value an insert adds, a move into another table, a write after
/// a sort that failed and a sort of another table are all checked as any write is.
@Suite struct ArrayMovesTests {
  static let source = """
    local F = {}
    function F.initial_state()
      return { list = { { n = 3 }, { n = 1 }, { n = 2 } }, other = { { n = 9 } } }
    end
    local by_n = function(a, b) return a.n < b.n end
    function F.reduce(state, action)
      local t = action.type
      if t == "sort" then table.sort(state.list, by_n)
      elseif t == "insert" then table.insert(state.list, 1, { n = 0 })
      elseif t == "remove" then table.remove(state.list, 1)
      elseif t == "move" then table.move(state.list, 1, 2, 2)
      elseif t == "move_into_other" then table.move(state.list, 1, 1, 2, state.other)
      elseif t == "sort_inserting_elsewhere" then
        table.sort(state.list, function(a, b)
          if #state.other < 2 then table.insert(state.other, 1, { n = 8 }) end
          return a.n < b.n
        end)
      elseif t == "sort_then_fail" then table.sort(state.list, by_n) error("after the sort")
      elseif t == "comparator_writes_a_cycle" then
        table.sort(state.list, function(a, b) state.list[1].me = state return a.n < b.n end)
      elseif t == "failed_sort_then_cycle" then
        pcall(table.sort, state.list, function() error("no order") end)
        state.list[1].up = state
      elseif t == "invalid_order_then_cycle" then
        pcall(table.sort, state.list, function() return true end)
        state.list[2] = state
      elseif t == "insert_the_state" then table.insert(state.list, 1, state)
      elseif t == "insert_then_cycle" then
        table.insert(state.list, 1, state.list[3])
        state.list[1].up = state
      elseif t == "move_a_cycle_in" then table.move({ state }, 1, 1, 1, state.list[1])
      elseif t == "move_the_state_in" then table.move({ state, state }, 1, 2, 1, state.list)
      elseif t == "walk" then
        -- A table stored where it already is elsewhere: the shape is walked, its bound known.
        state.alias = state.list
        state.alias = nil
      elseif t == "sort_writes_a_cycle" then
        -- The order function empties the array (writes of nil) and stores it in an element the
        -- sort holds (a table holding no table: no walk needed for that store); the sort then
        -- writes the element back into the array it is now inside.
        local done = false
        table.sort(state.list, function(x)
          if not done then
            done = true
            local l = state.list
            while #l > 0 do table.remove(l) end
            x.back = l
          end
          return true
        end)
      elseif t == "sort_sinks_too_deep" then
        local done = false
        table.sort(state.list, function()
          if not done then
            done = true
            local l = state.list
            l[1], l[2], l[3] = nil, nil, nil
            local node = state.other[1]
            for i = 1, 197 do node.next = { i = i } node = node.next end
            node.list = l
          end
          return true
        end)
      elseif t == "failed_inner_sort_then_cycle" or t == "yielding_inner_sort_then_cycle" then
        -- A sort inside the order function that fails (caught) leaves its move behind; the
        -- outer sort's writes are not that call's.
        local done = false
        table.sort(state.list, function(x)
          if done then return false end
          done = true
          local l = state.list
          while #l > 0 do table.remove(l) end
          l[1], l[2] = 1, 2
          x.back = l
          if t == "failed_inner_sort_then_cycle" then
            pcall(table.sort, l, function() error("x") end)
          else
            coroutine.resume(coroutine.create(function()
              table.sort(l, function() coroutine.yield() end)
            end))
          end
          return true
        end)
      elseif t == "sort_through_a_newindex_table" then
        -- The outer sort moves a plain table whose writes go to a state array; a failed sort
        -- of that array, run from its __index, leaves its move behind.
        local A, primed = state.list, false
        local P = setmetatable({}, {
          __len = function() return 2 end,
          __index = function()
            if not primed then primed = true pcall(table.sort, A, function() error("stop") end) end
            return state
          end,
          __newindex = A,
        })
        table.sort(P, function() return true end)
      elseif t == "remove_then_cycle" then
        table.remove(state.list, 1)
        state.list[1].up = state.list
      end
    end
    return F
    """

  @Test func aSortMovesTheElementsAndRollsBack() throws {
    let feature = try LuaFeature(source: Self.source, file: "sort.lua")
    let before = try feature.state()
    #expect(throws: LuaFeatureError.self) { try feature.step("sort_then_fail") }
    #expect(try feature.state() == before)
    try feature.step("sort")
    #expect(try feature.state()["list"] == [["n": 1], ["n": 2], ["n": 3]])
  }

  static let moves: [(String, LuaValue, LuaValue)] = [
    ("insert", [["n": 0], ["n": 3], ["n": 1], ["n": 2]], [["n": 9]]),
    ("remove", [["n": 1], ["n": 2]], [["n": 9]]),
    ("move", [["n": 3], ["n": 3], ["n": 1]], [["n": 9]]),
    ("move_into_other", [["n": 3], ["n": 1], ["n": 2]], [["n": 9], ["n": 3]]),
    (
      "sort_inserting_elsewhere", [["n": 1], ["n": 2], ["n": 3]],
      [["n": 8], ["n": 9]]
    ),
  ]

  @Test(arguments: Self.moves)
  func eachMoveEndsAsInLua(_ action: String, _ list: LuaValue, _ other: LuaValue) throws {
    let feature = try LuaFeature(source: Self.source, file: "sort.lua")
    try feature.step(.string(LuaString(action)))
    #expect(try feature.state()["list"] == list)
    #expect(try feature.state()["other"] == other)
  }

  /// A sort whose order function writes the state makes no more marks: the elements it holds
  /// may have gone anywhere (the array inside one of them, or under a chain too deep).
  @Test(arguments: [
    "sort_writes_a_cycle", "sort_sinks_too_deep", "failed_inner_sort_then_cycle",
    "yielding_inner_sort_then_cycle", "sort_through_a_newindex_table",
  ])
  func aSortWhoseOrderFunctionWritesTheStateIsChecked(_ action: String) throws {
    let feature = try LuaFeature(source: Self.source, file: "sort.lua")
    try feature.step("walk")
    let before = try feature.state()
    let error = featureError { try feature.step(.string(LuaString(action))) }
    #expect(
      error?.description.contains("inside itself") == true
        || error?.description.contains("deep") == true,
      "\(action): \(String(describing: error))")
    #expect(try feature.state() == before)
  }

  @Test(arguments: [
    "comparator_writes_a_cycle", "failed_sort_then_cycle", "invalid_order_then_cycle",
    "insert_the_state", "insert_then_cycle", "move_a_cycle_in", "move_the_state_in",
    "remove_then_cycle",
  ])
  func aWriteThatIsNotAMoveWithinTheArrayIsChecked(_ action: String) throws {
    let feature = try LuaFeature(source: Self.source, file: "sort.lua")
    let before = try feature.state()
    let error = featureError { try feature.step(.string(LuaString(action))) }
    #expect(
      error?.description.contains(" is state") == true
        || error?.description.contains("inside itself") == true,
      "\(action): \(String(describing: error))")
    #expect(try feature.state() == before)
  }
}
