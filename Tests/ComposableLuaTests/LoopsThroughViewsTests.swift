import ComposableLua
import LuaKit
import Testing

/// A list looped over with `ipairs` in two transactions gets a view (or flat reads), as one
/// indexed would, and its later loops step through it with Lua's own `t[i]`; writes of a
/// number, a string or a boolean through an element with flat reads take a shorter path into
/// the journal. Both must see and leave exactly what plain tables do: each action below runs
/// the same random operations on the state's list and on a plain copy kept beside it, and
/// compares what a loop visits after each one, across actions, rollbacks included (a failed
/// action puts the copy back as the rollback puts the state back). A view that kept a value
/// its table no longer holds, or a write past the journal, would show as a difference.
@Suite struct LoopsThroughViewsTests {
  static let source = """
    local F = {}
    local plain  -- the copy, kept in step with state.list
    local function copy(v)
      if type(v) ~= "table" then return v end
      local t = {}
      for k, x in pairs(v) do t[k] = copy(x) end
      return t
    end
    local function fresh_list(size)
      local list = {}
      for i = 1, size do
        list[i] = i % 5 == 0 and i or { n = i, tag = "t" .. i }
      end
      return list
    end
    function F.initial_state()
      local list = fresh_list(12)
      plain = copy(list)
      return { list = list, visits = 0 }
    end
    local function shown(v)
      if type(v) ~= "table" then return tostring(v) end
      local sub = type(v.sub) == "table" and ("/" .. tostring(v.sub.m)) or ""
      return "{" .. tostring(v.n) .. "," .. tostring(v.tag) .. sub .. "}"
    end
    local function show(list)
      local parts = {}
      for i, v in ipairs(list) do parts[#parts + 1] = i .. "=" .. shown(v) end
      parts[#parts + 1] = "#" .. #list
      return table.concat(parts, " ")
    end
    local seed
    local function draw(n)  -- 1...n
      seed = (seed * 1103515245 + 12345) % 2147483648
      return seed // 65536 % n + 1
    end
    local function key(x) return type(x) == "table" and x.n or x end
    local function order(a, b)
      if key(a) ~= key(b) then return key(a) < key(b) end
      return shown(a) < shown(b)
    end
    -- Walks `list`, changing it at step `at` as `how` says: the visit, as a string.
    local function walk(list, at, how, v)
      local seen = {}
      for i, x in ipairs(list) do
        seen[#seen + 1] = i .. "=" .. shown(x)
        if i == at then
          if how == 1 then table.remove(list, 1)
          elseif how == 2 then table.insert(list, i + 1, { n = v, tag = "mid" })
          elseif how == 3 then list[#list] = nil
          elseif how == 4 then list[i + 1] = v
          elseif how == 5 and type(x) == "table" then x.n = v
          elseif how == 6 then list[i] = { n = v, tag = "swap" }
          end
        end
      end
      return table.concat(seen, " ")
    end
    -- One operation, the same on the state's list and on the plain copy.
    local function apply(list, op, i, v)
      local n = #list
      if op == 1 then
        if type(list[i]) == "table" then list[i].n = v end
      elseif op == 2 then
        if i <= n + 1 then list[i] = { n = v, tag = "new" } end
      elseif op == 3 then
        if i <= n then list[i] = v end
      elseif op == 4 then
        table.insert(list, math.min(i, n + 1), { n = v, tag = "ins" })
      elseif op == 5 then
        if n > 0 then table.remove(list, math.min(i, n)) end
      elseif op == 6 then
        table.sort(list, order)
      elseif op == 7 then
        if n > 0 then list[n] = nil end
      elseif op == 8 then
        if type(list[i]) == "table" then list[i].sub = { m = v } end
      elseif op == 9 then
        if type(list[i]) == "table" then list[i].sub = nil end
      elseif op == 10 then
        if type(list[i]) == "table" and type(list[i].sub) == "table" then list[i].sub.m = v end
      elseif op == 11 then
        if i <= n then rawset(list, i, i % 2 == 0 and v or { n = v, tag = "raw" }) end
      elseif op == 12 then
        if type(list[i]) == "table" then list[i].tag = tostring(v) list[i].flag = v % 2 == 0 end
      end
    end
    function F.reduce(state, action)
      seed = action.seed
      local backup = action.fail and copy(plain)
      local function check(where)
        local got, want = show(state.list), show(plain)
        if got ~= want then error(where .. ": state " .. got .. " / plain " .. want, 0) end
      end
      check("at the start")
      if action.replace then
        local list = fresh_list(draw(20))
        plain = copy(list)
        state.list = list
        check("after a new list")
      end
      for step = 1, action.ops do
        local op, i, v = draw(13), draw(16), draw(100)
        if op == 13 then
          local at, how = draw(14), draw(6)
          local got, want = walk(state.list, at, how, v), walk(plain, at, how, v)
          if got ~= want then
            error("walk " .. at .. "/" .. how .. ": state " .. got .. " / plain " .. want, 0)
          end
        else
          apply(state.list, op, i, v)
          apply(plain, op, i, v)
        end
        check("op " .. op .. " at step " .. step)
        state.visits = state.visits + 1
      end
      if action.fail then
        plain = backup
        error("asked to roll back", 0)
      end
    end
    return F
    """

  @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [Int])
  func loopsSeeWhatPlainTablesHold(_ seed: Int) throws {
    let feature = try LuaFeature(source: Self.source, file: "loops.lua")
    var failed = 0
    for action in 0..<200 {
      let fail = (action * 7 + seed) % 5 == 0
      var value: LuaValue = [
        "type": "run", "seed": .integer(seed * 1_000 + action), "ops": .integer(action % 9 + 1),
      ]
      if fail { value.fail = true }
      if (action + seed) % 37 == 0 { value.replace = true }
      let message: String? =
        switch Result(catching: { try feature.step(value) }) {
        case .success: nil
        case .failure(let error): "\(error)"
        }
      if fail, let message, message.contains("the state was rolled back: asked to roll back") {
        failed += 1
        continue
      }
      if !fail && message == nil { continue }
      Issue.record("action \(action) of seed \(seed): \(message ?? "did not fail")")
      return
    }
    #expect(failed > 20)
    #expect(try feature.state()["visits"].intValue ?? 0 > 500)
  }

  /// A view forgets a key at each write through its proxy and is given it again at the next
  /// read; the count of what it was given, forgotten keys included, passes its limit (4,096)
  /// after a few hundred actions here. It then counts what it holds and goes on: the loops and
  /// reads must still see every write (a view that kept a forgotten value would show it).
  @Test func aViewWrittenOverAndOverStillSeesEveryWrite() throws {
    let feature = try LuaFeature(
      source: """
        return {
          initial_state = function()
            return { list = { { n = 0 }, 0, 0, 0, 0, 0, 0, 0, 0, 0 } }
          end,
          reduce = function(state, action)
            local list = state.list
            for i = 2, #list do list[i] = list[i] + i end
            local sum = 0
            for i, v in ipairs(list) do
              if i > 1 then sum = sum + v + list[i] end
            end
            state.sum = sum
          end,
        }
        """, file: "churn.lua")
    for action in 1...600 {
      _ = try feature.step("add")
      // Each of list[2...10] holds i * action: the loop and the index read both see it.
      let expected = 2 * action * (2...10).reduce(0, +)
      let sum = try feature.state()["sum"].intValue
      if sum != expected {
        Issue.record("action \(action): the sum is \(sum.map(String.init) ?? "nil"), not \(expected)")
        return
      }
    }
  }
}
