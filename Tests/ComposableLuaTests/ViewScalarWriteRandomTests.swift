import ComposableLua
import LuaKit
import TestSupport
import Testing

/// Random reads and writes (string keys and scalars above all, the short path of a write through
/// a view or flat reads) on the state and on a plain copy, compared at every read; a third of
/// the actions fail at the end, and the copy is kept only by those that succeed.
@Suite struct ViewScalarWriteRandomTests: AttackSuite {
  static let source = AttackFeature.source(
    initialState: """
      return {
        a = { x = 1, s = { y = 2, t = { z = 3 } }, w = 'w' },
        b = { 1, 2, { w = 1 } },
        c = { p = 1, q = 2 },
      }
      """)

  static let code = """
    local seed = action.seed
    local function rnd(n) seed = (seed * 1103515245 + 12345) % 2147483648 return seed % n + 1 end
    local function copy(t) local c = {} for k, v in pairs(t) do c[k] = type(v) == 'table' and copy(v) or v end return c end
    local function same(s, m, path)
      for k, v in pairs(m) do
        local w = s[k]
        if type(v) == 'table' then
          assert(type(w) == 'table', path .. '.' .. tostring(k) .. ' not a table: ' .. tostring(w))
          same(w, v, path .. '.' .. tostring(k))
        else
          assert(w == v, path .. '.' .. tostring(k) .. ': ' .. tostring(w) .. ' ~= ' .. tostring(v))
        end
      end
      for k, w in pairs(s) do assert(m[k] ~= nil, path .. ': extra key ' .. tostring(k)) end
    end
    if K.mirror == nil then K.mirror = copy(state) end
    local m = copy(K.mirror)
    same(state, m, 'state')
    local keys = { 'x', 'y', 'z', 's', 't', 'p', 'q', 'w', '', '__index', 'k' .. string.rep('l', 50), 'n\\0ul', 1, 2, 3 }
    local function value()
      local r = rnd(12)
      if r <= 3 then return rnd(100) elseif r == 4 then return 's' .. rnd(5) elseif r == 5 then return rnd(2) == 1
      elseif r <= 8 then return nil
      elseif r <= 10 then return 'table1' else return 'table2' end
    end
    local function mk(kind) if kind == 'table1' then return { q = rnd(9) } else return { y = rnd(9), t = { z = rnd(9) } } end end
    local pairs_ = {}
    local function collect()
      pairs_ = {}
      local function walk(s, mm) pairs_[#pairs_ + 1] = { s, mm } for k, v in pairs(mm) do if type(v) == 'table' then walk(s[k], v) end end end
      walk(state, m)
    end
    collect()
    for _ = 1, action.ops do
      local p = pairs_[rnd(#pairs_)]
      local s, mm = p[1], p[2]
      local k = keys[rnd(#keys)]
      local op = rnd(10)
      if op <= 4 then
        local v, w = mm[k], s[k]
        if type(v) == 'table' then assert(type(w) == 'table', 'read ' .. tostring(k)) else assert(w == v, 'read ' .. tostring(k) .. ': ' .. tostring(w) .. ' ~= ' .. tostring(v)) end
      else
        local v = value()
        if s == state and type(k) ~= 'string' then v = nil end
        if v == 'table1' or v == 'table2' then
          s[k] = mk(v) mm[k] = copy(s[k]) collect()
        else
          local was = type(mm[k]) == 'table'
          s[k] = v mm[k] = v
          local w = s[k]
          assert(w == v, 'read back ' .. tostring(k) .. ': ' .. tostring(w) .. ' ~= ' .. tostring(v))
          if was then collect() end
        end
      end
    end
    same(state, m, 'state (end)')
    if action.fail then error('planned') end
    K.mirror = m
    """

  @Test(arguments: [1, 2, 3, 4])
  func randomActions(seed: Int) throws {
    let f = try AttackFeature.make(Self.source)
    var s = UInt64(seed)
    for i in 0..<100 {
      s = s &* 6364136223846793005 &+ 1442695040888963407
      let fail = (s >> 33) % 3 == 0
      let action: LuaValue = [
        "type": "x", "code": .string(LuaString(Self.code)), "seed": .integer(Int(s >> 35) + i),
        "ops": .integer(20 + Int((s >> 20) % 200)), "fail": .boolean(fail),
      ]
      let before = try f.state()
      do {
        try f.step(action)
        #expect(!fail, "seed \(seed) action \(i) did not fail")
      } catch {
        let text = "\(error)"
        if !fail || !text.contains("planned") {
          Issue.record("seed \(seed) action \(i): \(text.prefix(400))")
          return
        }
        #expect(
          try f.state() == before, "seed \(seed) action \(i): state changed by a failed action")
      }
    }
  }
}
