import ComposableLua
import LuaKit
import TestSupport
import Testing

/// table.sort on a state's array moves its elements within it, and skips the proof of the
/// state's shape for those moves only: a comparator's own writes, a write after a sort that
/// failed, and a sort of another table are all checked as any write is.
@Suite struct SortMovesTests {
  static let source = """
    local F = {}
    function F.initial_state()
      return { list = { { n = 3 }, { n = 1 }, { n = 2 } }, other = { { n = 9 } } }
    end
    local by_n = function(a, b) return a.n < b.n end
    function F.reduce(state, action)
      local t = action.type
      if t == "sort" then table.sort(state.list, by_n)
      elseif t == "sort_then_fail" then table.sort(state.list, by_n) error("after the sort")
      elseif t == "comparator_writes_a_cycle" then
        table.sort(state.list, function(a, b) state.list[1].me = state return a.n < b.n end)
      elseif t == "failed_sort_then_cycle" then
        pcall(table.sort, state.list, function() error("no order") end)
        state.list[1].up = state
      elseif t == "invalid_order_then_cycle" then
        pcall(table.sort, state.list, function() return true end)
        state.list[2] = state
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

  @Test(arguments: ["comparator_writes_a_cycle", "failed_sort_then_cycle", "invalid_order_then_cycle"])
  func aWriteThatIsNotTheSortsOwnIsChecked(_ action: String) throws {
    let feature = try LuaFeature(source: Self.source, file: "sort.lua")
    let before = try feature.state()
    let error = featureError { try feature.step(.string(LuaString(action))) }
    #expect(error?.description.contains("is state") == true, "\(action): \(String(describing: error))")
    #expect(try feature.state() == before)
  }
}

