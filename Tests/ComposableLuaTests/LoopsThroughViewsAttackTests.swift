import ComposableLua
import LuaKit
import Testing

/// Attacks on loops through views and flat reads (36278dc, bb171c6): coroutines yielding mid
/// loop with the list shifted meanwhile, stale steps and proxies kept in module locals, pcall'd
/// stores that fail mid loop, order functions that write the list, nested loops writing it,
/// table.move from another state list, float keys, holes, rawset, lists growing past 2,048 and
/// 4,096 mid loop, a view churned past its count, flat lists given a table mid loop. After each
/// action, a loop must see what the real table holds (read with rawget), and a failed action
/// must leave no write behind (`leak`).
@Suite struct LoopsThroughViewsAttackTests {
  static let source = """
    local F = {}
    local kept, keptstep
    function F.initial_state()
      local big = {}
      for i = 1, 2040 do big[i] = (i % 3 == 0) and { n = i } or i end
      return { list = { { n = 1 }, { n = 2 }, 3, { n = 4 }, { n = 5 } }, big = big,
               flat = { 1, 2, 3, 4 } }
    end
    local function key(v)
      if type(v) ~= "table" then return tostring(v) end
      return "{" .. tostring(v.n) .. (v.leak and "L" or "") .. "}"
    end
    local function raw(l)
      local p, i = {}, 1
      while rawget(l, i) ~= nil do p[#p + 1] = key(l[i]); i = i + 1 end
      return table.concat(p, ",")
    end
    local function loop(l)
      local p = {}
      for _, v in ipairs(l) do p[#p + 1] = key(v) end
      return table.concat(p, ",")
    end
    local function check(state)
      for _, name in ipairs({ "list", "big", "flat" }) do
        local l = state[name]
        local a, b = loop(l), raw(l)
        if a ~= b then error("MISMATCH " .. name .. ": loop " .. a .. " / raw " .. b, 0) end
        if a:find("L") then error("LEAK " .. name .. ": " .. a, 0) end
      end
    end
    function F.reduce(state, action)
      check(state)
      local l, big, f = state.list, state.big, state.flat
      local a = type(action) == "table" and action.type or action
      if a == "leakfail" then
        for _, v in ipairs(l) do if type(v) == "table" then v.leak = true end end
        for _, v in ipairs(big) do if type(v) == "table" then v.leak = true end end
        error("asked to roll back", 0)
      elseif a == "keep" then kept = l[1]; keptstep = ipairs(l)
      elseif a == "stale" then
        for _, v in keptstep, l, 0 do if type(v) == "table" then local _ = v.n end end
        kept.leak = true
        error("asked to roll back", 0)
      elseif a == "co" then
        local co = coroutine.wrap(function()
          for i, v in ipairs(l) do coroutine.yield(i, v) end
        end)
        co()
        table.insert(l, 1, { n = 100 }); l[3] = { n = 300 }; table.remove(l)
        while co() do end
      elseif a == "pcallstore" then
        for i in ipairs(l) do
          if i == 2 then
            pcall(function() l[2] = setmetatable({}, {}) end)
            pcall(function() l[3] = { { n = 9 }, setmetatable({}, {}) } end)
          end
        end
        l[1].n = 11
      elseif a == "sortw" or a == "sortwfail" then
        table.sort(l, function(x, y)
          l[6] = { n = 6 }
          local kx = type(x) == "table" and x.n or x
          local ky = type(y) == "table" and y.n or y
          return kx > ky
        end)
        if a == "sortwfail" then error("asked to roll back", 0) end
      elseif a == "nest" then
        for i in ipairs(l) do
          for j, w in ipairs(l) do
            if j == i then l[j] = type(w) == "table" and { n = (w.n or 0) + 1 } or w + 1 end
          end
        end
      elseif a == "move" then
        state.other = { { n = 50 }, 51 }
        table.move(state.other, 1, 2, 2, l)
      elseif a == "float" then l[2.0] = 7; l[#l + 1.0] = { n = 77 }
      elseif a == "holes" then l[3] = nil
      elseif a == "raw" then rawset(l, 1, { n = 1000 }); rawset(l, 2, 2000)
      elseif a == "grow" then
        for i in ipairs(big) do
          if i == 2000 then
            for k = 1, 3000 do big[#big + 1] = (k % 2 == 0) and { n = k } or k end
          end
          if i == 4500 then big[i + 1] = "X" end
        end
      elseif a == "shrink" then for i = #big, 2001, -1 do big[i] = nil end
      elseif a == "churn" then
        for r = 1, 10 do
          for i = 1, 600 do big[i] = type(big[i]) == "table" and { n = r } or r end
          for _ in ipairs(big) do end
        end
      elseif a == "flatins" then
        for i in ipairs(f) do if i == 2 then table.insert(f, 3, { n = 9 }) end end
      elseif a == "flatraw" then
        for i in ipairs(f) do if i == 1 then rawset(f, 4, { n = 8 }) end end
      elseif a == "flatfail" then
        f[1] = { n = 1 }; for _ in ipairs(f) do end; error("asked to roll back", 0)
      elseif a == "flatscalar" then f.x = "s"; f[5] = 5; f[1.5] = 2; for _ in ipairs(f) do end
      end
      check(state)
      for _, v in ipairs(f) do if type(v) == "table" then v.touched = (v.touched or 0) + 1 end end
    end
    return F
    """

  @Test func loopsSeeTheRealTablesAndFailuresLeaveNothing() throws {
    let feature = try LuaFeature(source: Self.source, file: "attack.lua")
    let actions = [
      "x", "x", "x", "keep", "x", "leakfail", "x", "stale", "co", "x", "pcallstore", "x", "x",
      "sortw", "x", "sortwfail", "x", "nest", "x", "move", "x", "float", "x", "holes", "x", "raw",
      "x", "stale", "x", "grow", "x", "grow", "shrink", "x", "churn", "churn", "x", "leakfail",
      "x", "flatfail", "x", "x", "flatins", "x", "flatraw", "x", "x", "flatscalar", "flatscalar",
      "x", "flatfail", "x", "leakfail", "x",
    ]
    for (n, action) in actions.enumerated() {
      let message: String? =
        switch Result(catching: { try feature.step(LuaValue(stringLiteral: action)) }) {
        case .success: nil
        case .failure(let error): "\(error)"
        }
      if let message, !message.contains("the state was rolled back: asked to roll back") {
        Issue.record("action \(n) (\(action)): \(message)")
        return
      }
    }
    _ = try feature.step("x")  // the checks of the state as the last action left it
  }
}
