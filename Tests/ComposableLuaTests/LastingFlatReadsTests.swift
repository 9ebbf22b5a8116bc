import ComposableLua
import LuaKit
import Testing

/// A state table holding no table that is read in two transactions, or twice in one, is read as
/// a plain table from then on: its proxy's reads become lookups the VM does in its real table,
/// across actions. What would let such a read hand out a real table instead of its proxy takes
/// that back: a table stored in it, a rollback of the transaction that gave the reads (whose
/// undo may give a nested table back), a sweep. Each case below would write past the journal if
/// it did not, and the rollback that follows would then leave the write behind.
@Suite struct LastingFlatReadsTests {
  static let source = """
    local F = {}
    function F.initial_state()
      local many = {}
      for i = 1, 5000 do many[i] = { n = i } end
      return { rec = { a = 1, sub = { v = 0 } }, other = { n = 0 }, many = many }
    end
    local function read_twice(t) return t.a, t.a end
    function F.reduce(state, action)
      local t = action.type
      if t == "read" then
        read_twice(state.rec)
      elseif t == "drop_sub_read_fail" then
        -- `rec` is flat once `sub` is gone; read twice, it reads as a plain table, then the
        -- rollback gives `sub` back.
        state.rec.sub = nil
        read_twice(state.rec)
        error("rolled back")
      elseif t == "write_through_sub" then
        state.rec.sub.v = 9
        error("rolled back")
      elseif t == "drop_sub" then
        state.rec.sub = nil
      elseif t == "store_then_write" then
        read_twice(state.rec)
        state.rec.ref = state.other
        state.rec.ref.n = 5
        state.rec.made = { v = 1 }
        state.rec.made.v = 2
        if action.fail then error("rolled back") end
      elseif t == "write_through_ref" then
        state.rec.ref.n = 7
        state.rec.made.v = 8
        error("rolled back")
      elseif t == "read_many" then
        local sum = 0
        for _, m in ipairs(state.many) do sum = sum + m.n + m.n end
        state.sum = sum
      elseif t == "store_in_many" then
        for i = action.from, action.to do
          state.many[i].ref = state.other
          state.many[i].ref.n = i
        end
        if action.fail then error("rolled back") end
      end
    end
    return F
    """

  func feature() throws -> LuaFeature {
    try LuaFeature(
      source: Self.source, file: "lasting.lua", limits: LuaLimits(memory: nil, instructions: nil))
  }

  @Test func aRollbackTakesBackTheFlatReadsItsTransactionGave() throws {
    let feature = try feature()
    let before = try feature.state()
    #expect(throws: LuaFeatureError.self) { try feature.step("drop_sub_read_fail") }
    #expect(try feature.state() == before)
    // `sub` is back, and read as its proxy: a write through it is journaled, and rolled back.
    #expect(throws: LuaFeatureError.self) { try feature.step("write_through_sub") }
    #expect(try feature.state() == before)
  }

  @Test func aTableStoredInATableReadAsPlainIsReadAsItsProxy() throws {
    let feature = try feature()
    _ = try feature.step("drop_sub")
    _ = try feature.step("read")  // read twice: plain reads from here on
    _ = try feature.step("read")
    let flat = try feature.state()
    #expect(throws: LuaFeatureError.self) {
      try feature.step(["type": "store_then_write", "fail": true])
    }
    #expect(try feature.state() == flat)
    _ = try feature.step("store_then_write")
    let stored = try feature.state()
    #expect(stored["other"]["n"] == 5 && stored["rec"]["made"]["v"] == 2, "\(stored)")
    // The next action reads `ref` and `made` as proxies: their writes are rolled back.
    #expect(throws: LuaFeatureError.self) { try feature.step("write_through_ref") }
    #expect(try feature.state() == stored)
  }

  /// 5,000 tables read twice in one action: more than a sweep, and more than may have such
  /// reads at once. Each still reads right, and each stored into afterwards reads its new
  /// table as a proxy, whether it had plain reads or not.
  @Test func manyTablesPastTheLimitAndASweep() throws {
    let feature = try feature()
    _ = try feature.step("read_many")
    #expect(try feature.state()["sum"] == .integer(5000 * 5001))
    _ = try feature.step("read_many")  // after the sweep, read in a second transaction
    let read = try feature.state()
    for (from, to) in [(1, 10), (4090, 4100), (4990, 5000)] {
      #expect(throws: LuaFeatureError.self) {
        try feature.step([
          "type": "store_in_many", "from": .integer(from), "to": .integer(to), "fail": true,
        ])
      }
      #expect(try feature.state() == read)
    }
    _ = try feature.step(["type": "store_in_many", "from": 4999, "to": 5000])
    #expect(try feature.state()["other"]["n"] == 5000)
  }

  /// Read as a plain table, a state table still answers every function that sees raw tables
  /// as the plain table it stands for, and still refuses a metatable.
  @Test func aTableReadAsPlainAnswersAsAPlainTable() throws {
    let feature = try LuaFeature(
      source: """
        local function look(t)
          local keys = {}
          for k, v in pairs(t) do keys[#keys + 1] = tostring(k) .. "=" .. tostring(v) end
          table.sort(keys)
          local n = 0
          for _ in next, t do n = n + 1 end
          return table.concat(keys, ","), #t, rawlen(t), rawget(t, 1), rawget(t, "a"), n,
            select("#", ipairs(t)), getmetatable(t) == nil
        end
        return {
          initial_state = function() return { rec = { 10, 20, a = "x", b = true } } end,
          reduce = function(state)
            local first = { look(state.rec) }  -- read once, then twice: plain reads
            local plain = { look({ 10, 20, a = "x", b = true }) }
            local second = { look(state.rec) }
            local _ = state.rec.a, state.rec.a
            local third = { look(state.rec) }
            local out = {}
            for i = 1, #plain do
              out[i] = tostring(plain[i]) == tostring(first[i])
                and tostring(plain[i]) == tostring(second[i])
                and tostring(plain[i]) == tostring(third[i])
            end
            state.same = out
            state.refused = not pcall(setmetatable, state.rec, {})
            state.rec.c = 3
            state.seen = state.rec.c
          end,
        }
        """, file: "look.lua")
    _ = try feature.step("go")
    let state = try feature.state()
    #expect(state["same"] == [true, true, true, true, true, true, true, true], "\(state)")
    #expect(state["refused"] == true && state["seen"] == 3 && state["rec"]["c"] == 3)
  }

  /// Flat reads given and taken back over and over in one action (read twice, a table stored,
  /// then removed) leave nothing behind once it ends: the lists of the transaction are made
  /// small again, whether it commits or rolls back.
  @Test func givingAndTakingBackOverAndOverLeavesNoMemory() throws {
    for fail in [false, true] {
      let feature = try LuaFeature(
        source: """
          return {
            initial_state = function() return { flat = { a = 1, b = 2 } } end,
            reduce = function(state, action)
              local flat = state.flat
              for _ = 1, 200000 do
                local _ = flat.a, flat.a
                flat.t = {}
                flat.t = nil
              end
              if action.fail then error("rolled back") end
            end,
          }
          """, file: "churn.lua", limits: LuaLimits(memory: nil, instructions: nil))
      let before = feature.memoryInUse()
      _ = try? feature.step(["type": "go", "fail": .boolean(fail)])
      #expect(try feature.state()["flat"]["a"] == 1)
      let after = feature.memoryInUse()
      #expect(after < before + 256 * 1024, "fail \(fail): \(before) bytes before, \(after) after")
    }
  }
}
