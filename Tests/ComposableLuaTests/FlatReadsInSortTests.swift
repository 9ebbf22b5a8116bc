import ComposableLua
import LuaKit
import Testing

/// A sort with an order function reads a state's elements that hold no table as plain tables
/// for the rest of the action (their proxies' reads become lookups the VM does). What would let
/// a read hand out a real table instead of its proxy takes that back: a table stored in the
/// element (during the sort or after it), a rollback that gives a nested table back, the end
/// of the action. Each case below would write past the journal if it did not, and the rollback
/// that follows would then leave the write behind.
@Suite struct FlatReadsInSortTests {
  static let source = """
    local F = {}
    function F.initial_state()
      return {
        list = { { n = 3 }, { n = 1 }, { n = 2, sub = { v = 0 } } },
        other = { n = 0 },
      }
    end
    local function by_n(a, b) return a.n < b.n end
    function F.reduce(state, action)
      local t = action.type
      if t == "store_during_sort" then
        -- The order function stores a state table in an element, then writes through it.
        local done = false
        table.sort(state.list, function(a, b)
          if not done and a.sub == nil then
            done = true
            a.ref = state.other
            a.ref.n = 5
          end
          return a.n < b.n
        end)
        if action.fail then error("rolled back") end
      elseif t == "store_after_sort" then
        table.sort(state.list, by_n)
        state.list[1].ref = state.other
        state.list[1].ref.n = 6
        if action.fail then error("rolled back") end
      elseif t == "write_through_ref" then
        state.list[1].ref.n = 7
        error("rolled back")
      elseif t == "drop_sub_sort_fail" then
        -- The element holding `sub` is flat once `sub` is gone; the rollback gives it back.
        for _, e in ipairs(state.list) do e.sub = nil end
        table.sort(state.list, by_n)
        error("rolled back")
      elseif t == "write_through_sub" then
        for _, e in ipairs(state.list) do
          if e.sub then e.sub.v = 9 end
        end
        error("rolled back")
      elseif t == "sort_and_read" then
        table.sort(state.list, by_n)
        state.list[1].n = 10
        state.seen = state.list[1].n + state.list[2].n
      end
    end
    return F
    """

  func feature() throws -> LuaFeature { try LuaFeature(source: Self.source, file: "flat.lua") }

  @Test func aTableStoredDuringTheSortIsReadAsItsProxy() throws {
    let feature = try feature()
    let before = try feature.state()
    #expect(throws: LuaFeatureError.self) {
      try feature.step(["type": "store_during_sort", "fail": true])
    }
    #expect(try feature.state() == before)
    _ = try feature.step("store_during_sort")
    #expect(try feature.state()["other"]["n"] == 5)
  }

  @Test func aTableStoredAfterTheSortIsReadAsItsProxy() throws {
    let feature = try feature()
    let before = try feature.state()
    #expect(throws: LuaFeatureError.self) {
      try feature.step(["type": "store_after_sort", "fail": true])
    }
    #expect(try feature.state() == before)
    _ = try feature.step("store_after_sort")
    let kept = try feature.state()
    // The next action: the element's reads are the shared ones again.
    #expect(throws: LuaFeatureError.self) { try feature.step("write_through_ref") }
    #expect(try feature.state() == kept)
    #expect(kept["other"]["n"] == 6)
  }

  @Test func aRollbackThatGivesANestedTableBackEndsTheFlatReads() throws {
    let feature = try feature()
    let before = try feature.state()
    #expect(throws: LuaFeatureError.self) { try feature.step("drop_sub_sort_fail") }
    #expect(try feature.state() == before)
    // `sub` is back, and read as its proxy: a write through it is journaled, and rolled back.
    #expect(throws: LuaFeatureError.self) { try feature.step("write_through_sub") }
    #expect(try feature.state() == before)
  }

  @Test func readsAfterTheSortSeeTheWrites() throws {
    let feature = try feature()
    _ = try feature.step("sort_and_read")
    let state = try feature.state()
    #expect(state["seen"] == 12)
    #expect(state["list"][1]["n"] == 10)
    #expect(state["list"][2]["n"] == 2)
  }

  /// A plain table adopted in the action that sorts it and then fails is given its contents
  /// back: the flat reads end before the rollback undoes the adoption.
  @Test func anAdoptedTableSortedInAFailingActionIsGivenBack() throws {
    let feature = try LuaFeature(
      source: """
        local kept
        return {
          initial_state = function() return { list = { { v = 2 }, { v = 1 } } } end,
          reduce = function(state, action)
            if action.type == "adopt_sort_fail" then
              kept = { v = 0, w = 5 }
              state.list[3] = kept
              table.sort(state.list, function(a, b) return a.v < b.v end)
              error("boom")
            elseif action.type == "check" then
              local n = 0
              for _ in pairs(kept) do n = n + 1 end
              state.fields, state.w, state.mt = n, kept.w, getmetatable(kept) == nil
            end
          end,
        }
        """, file: "adopt.lua")
    #expect(throws: LuaFeatureError.self) { try feature.step("adopt_sort_fail") }
    _ = try feature.step("check")
    let state = try feature.state()
    #expect(state["fields"] == 2 && state["w"] == 5 && state["mt"] == true, "\(state)")
  }

  /// What a sort looks at to give an element flat reads is bounded: elements of many fields
  /// are sorted over and over, and the instruction budget, not the time limit, ends it.
  @Test func theLookAtEachElementIsBounded() throws {
    let feature = try LuaFeature(
      source: """
        return {
          initial_state = function()
            local function big(v)
              local t = { v = v, t = {} }
              for i = 1, 20000 do t[i] = i end
              return t
            end
            return { list = { big(2), big(1) } }
          end,
          reduce = function(state)
            for _ = 1, 1000000 do
              table.sort(state.list, function(a, b) return a.v < b.v end)
            end
          end,
        }
        """, file: "big.lua", limits: LuaLimits(memory: nil, instructions: 2_000_000))
    #expect {
      try feature.step("go")
    } throws: { error in
      guard case let .reduce(_, luaError) = error as? LuaFeatureError,
        case .instructionLimit = luaError
      else { return false }
      return true
    }
  }
}
