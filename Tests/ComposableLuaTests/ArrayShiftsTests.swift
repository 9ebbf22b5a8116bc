import ComposableLua
import LuaKit
import SeededRandom
import Testing

/// `table.insert` and `table.remove` on a state's array shift its real table directly, one
/// journal entry a slot (no proxy, no adoption for the elements that move): the same elements
/// end in the same places, with the same errors, as the same calls on a plain table; and a
/// rolled-back action gives every slot back.
@Suite struct ArrayShiftsTests {
  static let source = """
    local F = {}
    function F.initial_state()
      local list = {}
      for i = 1, 6 do list[i] = i % 2 == 0 and { n = i } or i end
      return { list = list }
    end
    -- A value as one string (tables by their n), to compare a state's array with a plain one.
    local function canon(list)
      local parts = {}
      for i = 1, #list + 2 do
        local v = rawget(list, i) or list[i]
        parts[i] = type(v) == "table" and ("{" .. tostring(v.n) .. "}") or tostring(v)
      end
      return table.concat(parts, ",") .. "#" .. #list
    end
    local function copy(list)
      local plain = {}
      for i, v in ipairs(list) do plain[i] = type(v) == "table" and { n = v.n } or v end
      return plain
    end
    -- Runs `op` on `list`: what it returned (tables by their n), or its error.
    local function run(op, list, value)
      local ok, result = pcall(function()
        if op.kind == "insert" then
          if op.pos == nil then return table.insert(list, value) end
          return table.insert(list, op.pos, value)
        end
        if op.pos == nil then return table.remove(list) end
        return table.remove(list, op.pos)
      end)
      if not ok then return "error: " .. tostring(result) end
      return type(result) == "table" and ("{" .. tostring(result.n) .. "}") or tostring(result)
    end
    function F.reduce(state, action)
      if action.type == "ops" then
        local plain = copy(state.list)
        for _, op in ipairs(action.ops) do
          local value = op.value == "table" and { n = op.n } or op.value == "alias"
            and state.list[1] or op.n
          local plain_value = op.value == "table" and { n = op.n } or op.value == "alias"
            and plain[1] or op.n
          local got, expected = run(op, state.list, value), run(op, plain, plain_value)
          if got ~= expected then
            error(("%s %s: the state's array gave %s, a plain one %s"):format(
              op.kind, tostring(op.pos), got, expected))
          end
          if canon(state.list) ~= canon(plain) then
            error(("%s %s: the state's array is %s, a plain one %s"):format(
              op.kind, tostring(op.pos), canon(state.list), canon(plain)))
          end
        end
        if action.fail then error("rolled back") end
      end
    end
    return F
    """

  /// A random list of inserts and removes, positions at the edges and past them.
  static func ops(seed: UInt64) -> LuaValue {
    var random = SplitMix64(seed: seed)
    var ops: [LuaValue] = []
    var length = 6
    for _ in 0..<Int.random(in: 1...12, using: &random) {
      let insert = Bool.random(using: &random)
      let positions: [Int?] = [nil, 0, 1, length / 2, length, length + 1, length + 2, -1]
      let pos = positions.randomElement(using: &random)!
      var op: LuaValue = [
        "kind": insert ? "insert" : "remove",
        "n": .integer(Int.random(in: 100...999, using: &random)),
        "value": ["table", "number", "alias"].randomElement(using: &random).map {
          .string(LuaString($0))
        }!,
      ]
      if let pos { op["pos"] = .integer(pos) }
      ops.append(op)
      length += insert ? 1 : (length > 0 ? -1 : 0)
    }
    return .table(LuaTable(array: ops))
  }

  @Test func shiftsEndAsOnAPlainTableAndRollBack() throws {
    for seed in UInt64(1)...300 {
      let feature = try LuaFeature(source: Self.source, file: "shifts.lua")
      let before = try feature.state()
      let ops = Self.ops(seed: seed)
      // The same calls, rolled back: every slot as it was.
      #expect(throws: LuaFeatureError.self) {
        try feature.step(["type": "ops", "ops": ops, "fail": true])
      }
      #expect(try feature.state() == before, "seed \(seed)")
      // And kept: each call agreed with the plain table's (the reducer raises otherwise).
      do {
        _ = try feature.step(["type": "ops", "ops": ops])
      } catch {
        Issue.record("seed \(seed): \(error)")
      }
    }
  }

  /// A shift that runs out of budget half way stops there, and the action rolls back whole.
  @Test func aShiftStoppedByTheBudgetRollsBack() throws {
    let feature = try LuaFeature(
      source: """
        return {
          initial_state = function()
            local list = {}
            for i = 1, 200000 do list[i] = i end
            return { list = list }
          end,
          reduce = function(state, action)
            for _ = 1, 1000 do table.insert(state.list, 1, 0) end
          end,
        }
        """, file: "budget.lua", limits: LuaLimits(memory: nil, instructions: 1_000_000))
    let before = try feature.state()
    #expect(throws: LuaFeatureError.self) { try feature.step("go") }
    #expect(try feature.state() == before)
  }

  static let longList = """
    return {
      initial_state = function()
        local list = {}
        for i = 1, 100000 do list[i] = i end
        return { list = list, n = 0 }
      end,
      reduce = function(state, action)
        state.n = 1
        table.insert(state.list, 1, 0)
        table.insert(state.list, 50000, -1)
        state.removed = table.remove(state.list, 2)
        state.last = state.list[#state.list]
        state.count = #state.list
        if action.type == "fail" then error("rolled back") end
      end,
    }
    """

  /// Shifts of 100,000 slots fill more than one of the journal's segments (65,536 entries
  /// each): rolled back, every slot is as it was; kept, each is where a plain table has it.
  @Test func shiftsAcrossJournalSegments() throws {
    let feature = try LuaFeature(
      source: Self.longList, file: "long.lua", limits: LuaLimits(memory: nil, instructions: nil))
    let before = try feature.state()
    #expect(throws: LuaFeatureError.self) { try feature.step("fail") }
    #expect(try feature.state() == before)
    _ = try feature.step("keep")
    let state = try feature.state()
    #expect(state["removed"] == 1 && state["last"] == 100000 && state["count"] == 100001)
    #expect(state["list"][1] == 0 && state["list"][2] == 2 && state["list"][49999] == -1)
    #expect(state["list"][50000] == 49999)
  }

  /// Under a memory limit that the journal reaches part way through a shift, at each of many
  /// limits: the action fails on the memory limit and rolls back whole, or succeeds whole.
  @Test func aShiftOutOfMemoryPartWayRollsBack() throws {
    for megabytes in stride(from: 3.0, through: 27.0, by: 1.5) {
      let limit = Int(megabytes * 1_048_576)
      guard
        let feature = try? LuaFeature(
          source: Self.longList, file: "long.lua",
          limits: LuaLimits(memory: limit, instructions: nil))
      else { continue }  // the state alone does not fit
      let before = try feature.state()
      do {
        _ = try feature.step("keep")
        #expect(try feature.state()["count"] == 100001, "\(megabytes) MB")
      } catch {
        #expect(try feature.state() == before, "\(megabytes) MB: \(error)")
      }
    }
  }

  /// What the journal says a list held when the action began (`composable.journal`, which
  /// `for_each` asks when an element's action finds no element) holds through shifts: each
  /// slot's old value is the one before the first shift that moved it.
  @Test func theJournalTellsWhatAShiftedListHeld() throws {
    let feature = try LuaFeature(
      source: """
        return {
          initial_state = function() return { list = { { id = 1 }, { id = 2 }, { id = 3 } } } end,
          reduce = function(state)
            local journal = require("composable.journal")
            table.insert(state.list, 1, { id = 9 })
            table.remove(state.list, 3)
            table.insert(state.list, 2, { id = 8 })
            state.set = { journal.was_set(state.list, 3), journal.was_set(state.list, 4),
              journal.was_set(state.list, 5) }
            state.had = { journal.had_element(state, "list", "id", 2),
              journal.had_element(state, "list", "id", 3),
              journal.had_element(state, "list", "id", 9),
              journal.had_element(state, "list", "id", 8) }
          end,
        }
        """, file: "journal.lua")
    _ = try feature.step("go")
    let state = try feature.state()
    #expect(state["set"] == [true, false, false], "\(state)")
    #expect(state["had"] == [true, true, false, false], "\(state)")
    #expect(state["list"][1]["id"] == 9 && state["list"][2]["id"] == 8)
    #expect(state["list"][3]["id"] == 1 && state["list"][4]["id"] == 3)
  }
}
