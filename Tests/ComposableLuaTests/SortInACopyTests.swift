import ComposableLua
import LuaKit
import SeededRandom
import Testing

/// `table.sort` of a state's array with an order function sorts the elements in a plain copy
/// and writes back the slots that moved: the same comparisons in the same order, the same end,
/// the same error and the same partial order when the order function raises (caught by a
/// pcall in the reducer) or is no order, as the same sort of a plain table; and a rollback
/// gives every slot back.
@Suite struct SortInACopyTests {
  static let source = """
    local F = {}
    function F.initial_state(n)
      return { list = {} }
    end
    local function ids(list)
      local out = {}
      for i = 1, #list do
        local v = list[i]
        out[i] = type(v) == "table" and tostring(v.id) or tostring(v)
      end
      return table.concat(out, ",")
    end
    -- An order from the action: by key, descending or ascending, raising at comparison
    -- `raise_at`, or no order at all (`chaos`); each comparison logged.
    local function order(action, log)
      local n = 0
      return function(a, b)
        n = n + 1
        log[#log + 1] = (type(a) == "table" and a.id or a) .. "<" ..
          (type(b) == "table" and b.id or b)
        if action.raise_at == n then error("stop at " .. n) end
        if action.chaos then return (n * 7919) % 3 == 0 end
        local x = type(a) == "table" and a.k or a
        local y = type(b) == "table" and b.k or b
        if action.down then return x > y end
        return x < y
      end
    end
    function F.reduce(state, action)
      if action.type == "fill" then
        for i, v in ipairs(action.values) do
          state.list[i] = type(v) == "table" and { id = v.id, k = v.k } or v
        end
      elseif action.type == "sort" then
        local plain = {}
        for i = 1, #state.list do
          local v = state.list[i]
          plain[i] = type(v) == "table" and { id = v.id, k = v.k } or v
        end
        local log_state, log_plain = {}, {}
        local ok_state, err_state = pcall(table.sort, state.list, order(action, log_state))
        local ok_plain, err_plain = pcall(table.sort, plain, order(action, log_plain))
        local function same(x, y, what)
          if x ~= y then error(what .. ": the state's " .. tostring(x) .. ", plain " .. tostring(y)) end
        end
        same(ok_state, ok_plain, "ok")
        same(tostring(err_state), tostring(err_plain), "error")
        same(table.concat(log_state, " "), table.concat(log_plain, " "), "comparisons")
        same(ids(state.list), ids(plain), "order")
        if action.fail then error("rolled back") end
      end
    end
    return F
    """

  /// 2 to 40 elements, all tables `{ id, k }` or all numbers (an order function compares like
  /// with like), with repeated keys: ties.
  static func values(_ random: inout SplitMix64) -> LuaValue {
    let count = Int.random(in: 2...40, using: &random)
    let tables = Int.random(in: 0..<4, using: &random) > 0
    var values: [LuaValue] = []
    for id in 1...count {
      let key = Int.random(in: 0...8, using: &random)
      values.append(tables ? ["id": .integer(id), "k": .integer(key)] : .integer(key * 100 + id))
    }
    return .table(LuaTable(array: values))
  }

  @Test func aSortInACopyIsTheSortOfAPlainTable() throws {
    var random = SplitMix64(seed: 31)
    for round in 0..<250 {
      let feature = try LuaFeature(source: Self.source, file: "sort.lua")
      _ = try feature.step(["type": "fill", "values": Self.values(&random)])
      let before = try feature.state()
      var sort: LuaValue = ["type": "sort"]
      switch round % 5 {
      case 1: sort["down"] = true
      case 2: sort["raise_at"] = .integer(Int.random(in: 1...60, using: &random))
      case 3: sort["chaos"] = true
      default: break
      }
      var failing = sort
      failing["fail"] = true
      #expect(throws: LuaFeatureError.self) { try feature.step(failing) }
      #expect(try feature.state() == before, "round \(round)")
      do {
        _ = try feature.step(sort)
      } catch {
        Issue.record("round \(round): \(error)")
      }
    }
  }
}
