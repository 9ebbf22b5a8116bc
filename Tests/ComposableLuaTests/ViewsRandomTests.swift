import ComposableLua
import LuaKit
import Testing

/// Random programs against the state and against a plain mirror in the same reducer: writes at
/// every depth (scalars, new tables, nils, aliases of other state tables), `rawset`, inserts,
/// removes, sorts and moves in lists, failed actions; after each operation every table is read
/// key by key through the proxies (the reads that fill views, and read through them) and
/// compared with the mirror. A view that showed what its table no longer held would differ.
@Suite struct ViewsRandomTests {
  static let source = """
    local mirror, saved
    local function copy(t, seen)
      if type(t) ~= "table" then return t end
      seen = seen or {}
      if seen[t] then return seen[t] end
      local c = {}
      seen[t] = c
      for k, v in pairs(t) do c[k] = copy(v, seen) end
      return c
    end
    local function make(n)
      local list = {}
      for i = 1, 6 do list[i] = { n = (i * 5 + n) % 7, sub = { v = i } } end
      return { list = list, map = { x = { y = { z = n } }, w = n }, s = "s" .. n }
    end
    local function init() return { a = make(1), b = make(2) } end
    local function differ(s, m, path)
      if type(m) ~= "table" then
        if s ~= m then return path .. ": " .. tostring(s) .. " ~= " .. tostring(m) end
        return nil
      end
      if type(s) ~= "table" then return path .. ": not a table" end
      for k, v in pairs(m) do
        for _ = 1, 2 do  -- twice: the second read goes through a view, if one was given
          local d = differ(s[k], v, path .. "." .. tostring(k))
          if d then return d end
        end
      end
      for k in pairs(s) do
        if m[k] == nil then return path .. "." .. tostring(k) .. ": extra" end
      end
      -- `#` of a table with holes may be any border (Lua leaves it open): compared on sequences.
      local integers = 0
      for k in pairs(m) do if math.type(k) == "integer" and k > 0 then integers = integers + 1 end end
      if integers == #m and #s ~= #m then return path .. ": # " .. #s .. " ~= " .. #m end
      return nil
    end
    local function pick(s, m, rand)
      -- A table of branch b (a is aliased into b, never b into a: no cycle), state and mirror.
      local top = rand(3) == 1 and "a" or "b"
      local ps, pm = s[top], m[top]
      local steps = rand(3) - 1
      for _ = 1, steps do
        local keys = {}
        for k, v in pairs(pm) do if type(v) == "table" then keys[#keys + 1] = k end end
        if #keys == 0 then break end
        table.sort(keys, function(x, y) return tostring(x) < tostring(y) end)
        local k = keys[rand(#keys)]
        ps, pm = ps[k], pm[k]
      end
      return ps, pm, top
    end
    local F = {}
    function F.initial_state()
      mirror = init()
      return init()
    end
    function F.reduce(state, action)
      local r = action.seed
      local function rand(n)
        r = (r * 1103515245 + 12345) % 2147483648
        return r % n + 1
      end
      -- The last action failed after the reducer returned (a cycle refused at its end): the
      -- mirror goes back too.
      if action.last_failed and saved then mirror = saved end
      saved = copy(mirror)
      local ok, err = pcall(function()
        for _ = 1, action.nops do
          local s, m, top = pick(state, mirror, rand)
          local op = rand(9)
          local key = ({ "n", "w", "s", "x", "y", "list", "new", 1, 2 })[rand(9)]
          if op == 1 then
            local v = rand(100)
            s[key] = v; m[key] = v
          elseif op == 2 then
            s[key] = { n = rand(9), sub = { v = rand(9) } }
            m[key] = { n = s[key].n, sub = { v = s[key].sub.v } }
          elseif op == 3 and type(key) == "string" then  -- no holes in lists: `#` would differ
            s[key] = nil; m[key] = nil
          elseif op == 4 and top == "b" then
            s[key] = state.a.map; m[key] = mirror.a.map  -- an alias of another state table
          elseif op == 5 then
            local v = rand(100)
            rawset(s, key, v); m[key] = v
          elseif op == 6 and #m.list > 0 then
            local at = rand(#m.list + 1)
            local t = { n = rand(9), sub = { v = 0 } }
            table.insert(s.list, at, t)
            table.insert(m.list, at, { n = t.n, sub = { v = 0 } })
          elseif op == 7 and type(m.list) == "table" and #m.list > 0 then
            local at = rand(#m.list)
            table.remove(s.list, at); table.remove(m.list, at)
          elseif op == 8 and type(m.list) == "table" and #m.list > 1 then
            local ok_s = pcall(table.sort, s.list, function(x, y) return x.n < y.n end)
            local ok_m = pcall(table.sort, m.list, function(x, y) return x.n < y.n end)
            if ok_s ~= ok_m then error("sorts differ") end
          elseif op == 9 and type(m.list) == "table" and #m.list > 2 then
            table.move(s.list, 1, 2, #m.list - 1); table.move(m.list, 1, 2, #m.list - 1)
          end
          local d = differ(state, mirror, "state")
          if d then state.bad = d; return end
        end
        if action.fail then error("rolled back") end
      end)
      if not ok then
        mirror = saved
        error(err)
      end
      local d = state.bad == nil and differ(state, mirror, "state")
      if d then state.bad = d end
    end
    return F
    """

  @Test func randomProgramsReadAsTheirMirror() throws {
    for seed in 1...40 {
      let feature = try LuaFeature(source: Self.source, file: "views-random.lua")
      var lastFailed = false
      for round in 0..<12 {
        let action: LuaValue = [
          "type": "run", "seed": .integer(seed * 1000 + round), "nops": 12,
          "fail": .boolean(round % 3 == 2), "last_failed": .boolean(lastFailed),
        ]
        let before = try feature.state()
        do {
          _ = try feature.step(action)
          lastFailed = false
        } catch {
          lastFailed = true
          #expect(try feature.state() == before, "seed \(seed) round \(round): \(error)")
        }
        let bad = try feature.state()["bad"]
        #expect(bad == .nil, "seed \(seed) round \(round): \(bad)")
        if bad != .nil { return }
      }
    }
  }
}
