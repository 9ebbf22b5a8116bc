import ComposableLua
import LuaKit
import TestSupport
import Testing

/// Attacks on lasting flat reads, by a tester sent to break them: each action carries Lua code
/// run against the state (`K` is a module local kept across actions), and `probe` writes through
/// every table a read can reach and fails, so a real table handed out would keep its write.
@Suite struct FlatReadsAttackTests: AttackSuite {
  static let source = AttackFeature.source(
    globals: "json = require(\"composable.json\")",
    initialState: """
      local many = {}
      for i = 1, 5000 do many[i] = { n = i } end
      return {
        rec = { a = 1, b = 2, sub = { v = 0 } },
        flat = { a = 1, b = 2 },
        list = { 3, 1, 2 },
        recs = { { n = 3 }, { n = 1 }, { n = 2 } },
        other = { n = 0 },
        many = many,
      }
      """)

  // Writes a marker through every table reachable by reading the state, then fails: a real
  // table handed out would keep its marker after the rollback.
  static let probe = """
    local seen = {}
    local function walk(t, depth)
      if seen[t] or depth > 50 then return end
      seen[t] = true
      local kids = {}
      for k, v in pairs(t) do if type(v) == "table" then kids[#kids + 1] = v end end
      for k, v in next, t do if type(v) == "table" then kids[#kids + 1] = v end end
      for i, v in ipairs(t) do if type(v) == "table" then kids[#kids + 1] = v end end
      for k in pairs(t) do
        local v = t[k]
        if type(v) == "table" then kids[#kids + 1] = v end
        local w = rawget(t, k)
        if type(w) == "table" then kids[#kids + 1] = w end
      end
      t.__probe = true
      for _, kid in ipairs(kids) do walk(kid, depth + 1) end
    end
    walk(state, 0)
    for _, t in pairs(K) do if type(t) == "table" then walk(t, 0) end end
    error("probe")
    """

  static func feature() throws -> LuaFeature { try AttackFeature.make(Self.source) }

  static func probe(_ f: LuaFeature, sourceLocation: SourceLocation = #_sourceLocation) throws {
    try fails(f, probe, sourceLocation: sourceLocation)
  }

  static let readTwice = "local function r2(t) return t.a, t.a, t.n, t.n, t.v, t.v, t[1], t[1] end\n"

  @Test func dropNestedReadTwiceStoreBackWriteThroughFail() throws {
    let f = try Self.feature()
    try Self.fails(f, Self.readTwice + """
      local rec = state.rec
      local sub = rec.sub
      rec.sub = nil
      r2(rec) r2(rec)
      rec.sub = sub
      local s = rec.sub
      s.v = 99
      K.s = rec.sub
      error("x")
      """)
    try Self.probe(f)
    try Self.run(f, Self.readTwice + "local rec = state.rec local sub = rec.sub rec.sub = nil r2(rec) r2(rec) K.sub = sub K.rec = rec")
    try Self.run(f, Self.readTwice + "r2(state.rec) r2(state.rec)")
    try Self.fails(f, Self.readTwice + """
      local rec = state.rec
      rec.sub = K.sub  -- a detached proxy stored back
      rec.sub.v = 5
      K.rec.sub.v = 6
      local s2 = rawget(rec, 'sub') s2.v = 7
      error('x')
      """)
    try Self.run(f, "state.rec.sub = K.sub")
    try Self.probe(f)
  }

  @Test func rawsetTableIntoFlatRead() throws {
    let f = try Self.feature()
    try Self.run(f, Self.readTwice + "r2(state.flat) r2(state.flat)")
    try Self.run(f, Self.readTwice + "r2(state.flat) r2(state.flat)")
    try Self.fails(f, "rawset(state.flat, 'x', {q = 1}) state.flat.x.q = 2 K.x = state.flat.x error('x')")
    try Self.run(f, "rawset(state.flat, 'x', {q = 1})")
    try Self.probe(f)
    try Self.fails(f, "state.flat.x.q = 3 error('x')")
  }

  @Test func selfStoresAndAliases() throws {
    let f = try Self.feature()
    try Self.run(f, Self.readTwice + "r2(state.flat) r2(state.flat) r2(state.other) r2(state.other)")
    try Self.run(f, "state.flat = state.flat state.other2 = state.other state.x = state.other")
    try Self.probe(f)
    try Self.fails(f, "state.flat.self = state.flat")  // cycle: shape fails
    try Self.probe(f)
    try Self.run(f, "state.flat.o = state.other")
    try Self.probe(f)
    try Self.fails(f, "state.flat.o.n = 42 state.other2.n = 43 error('x')")
  }

  @Test func pcallAroundFailedAdoption() throws {
    let f = try Self.feature()
    try Self.run(f, Self.readTwice + "r2(state.flat) r2(state.flat)")
    try Self.fails(f, Self.readTwice + """
      local h = { inner = { w = 1 } }
      K.h = h
      local ok = pcall(function() state.flat.h = { h, setmetatable({}, {}) } end)
      assert(not ok)
      r2(state.flat) r2(state.flat)
      assert(state.flat.h == nil)
      state.flat.h = h
      r2(state.flat)
      state.flat.h.inner.w = 2
      h.inner.w = 3
      error('x')
      """)
    try Self.probe(f)
    // h kept in K is plain again after the rollback
    try Self.run(f, "K.h.inner.w = 10 state.flat.h = K.h K.h.inner.w = 11")
    try Self.probe(f)
    #expect(try f.state()["flat"]["h"]["inner"]["w"] == 11)
  }

  @Test func adoptedTableReadTwiceThenRollback() throws {
    let f = try Self.feature()
    try Self.fails(f, Self.readTwice + """
      local h = { a = 1, n = 2 }
      K.h = h
      state.h = h
      r2(h) r2(h) r2(state.h)
      h.t = {}
      h.t = nil
      r2(h) r2(h)
      error('x')
      """)
    // After rollback h must be plain with its contents back.
    try Self.run(f, "assert(K.h.a == 1 and K.h.n == 2, 'contents lost') assert(getmetatable(K.h) == nil) assert(next(K.h) ~= nil, 'empty')")
    try Self.run(f, "K.h.zz = 1 state.h = K.h")
    try Self.probe(f)
  }

  @Test func sortComparatorWritesState() throws {
    let f = try Self.feature()
    try Self.fails(f, """
      local n = 0
      table.sort(state.recs, function(a, b)
        n = n + 1
        if n == 2 then a.t = { z = 1 } end
        if n == 3 then state.recs[1].t = nil end
        return a.n < b.n
      end)
      for _, r in ipairs(state.recs) do if r.t then r.t.z = 9 end end
      error('x')
      """)
    try Self.run(f, "table.sort(state.recs, function(a, b) return a.n < b.n end)")
    try Self.run(f, "table.sort(state.recs, function(a, b) return a.n > b.n end) state.recs[1].t = {z=1}")
    try Self.probe(f)
    try Self.fails(f, "state.recs[1].t.z = 5 error('x')")
  }

  @Test func tableMoveWithinFlatArray() throws {
    let f = try Self.feature()
    try Self.run(f, "local l = state.list local _ = l[1], l[1], l[2]")
    try Self.run(f, "local l = state.list local _ = l[1], l[1], l[2]")
    try Self.fails(f, "table.move(state.list, 1, 3, 2) table.insert(state.list, 1, {q=1}) state.list[1].q = 2 K.l = state.list[1] error('x')")
    try Self.run(f, "table.move(state.list, 1, 3, 2) local _ = state.list[1], state.list[1] table.insert(state.list, {q=1}) ")
    try Self.probe(f)
    try Self.run(f, "table.move(state.list, 1, #state.list, 3) local _ = state.list[1], state.list[1]")
    try Self.probe(f)
    try Self.run(f, "table.move(state.recs, 1, 3, 1, state.list)")
    try Self.probe(f)
    try Self.run(f, "local l = state.list for i = #l, 1, -1 do if type(l[i]) == 'table' then table.remove(l, i) end end local _ = l[1], l[1], l[2], l[2]")
    try Self.run(f, "local l = state.list local _ = l[1], l[1], l[2], l[2]")
    try Self.fails(f, "table.move(state.recs, 1, 3, 1, state.list) state.list[1].n = 77 error('x')")
    try Self.probe(f)
  }

  @Test func keptFlatProxyStoredElsewhere() throws {
    let f = try Self.feature()
    try Self.run(f, Self.readTwice + "K.o = state.other r2(state.other) r2(state.other)")
    try Self.run(f, Self.readTwice + "r2(K.o) state.a1 = { K.o } state.other = nil")
    try Self.probe(f)
    try Self.run(f, "K.o.t = { 1 } ")
    try Self.fails(f, "state.a1[1].t[1] = 2 error('x')")
    try Self.probe(f)
  }

  @Test func coroutineInsideReduce() throws {
    let f = try Self.feature()
    try Self.fails(f, Self.readTwice + """
      local co = coroutine.wrap(function()
        local fl = state.flat
        r2(fl) coroutine.yield() r2(fl)
        coroutine.yield()
        fl.t = { k = 1 }
        coroutine.yield()
        fl.t.k = 2
      end)
      co() co() co() co()
      K.co = coroutine.wrap(function() r2(state.flat) r2(state.flat) coroutine.yield() state.flat.t = {} end)
      K.co()
      error('x')
      """)
    try Self.run(f, "pcall(K.co)")
    try Self.probe(f)
  }

  @Test func keysLikeMetamethodsAndOddKeys() throws {
    let f = try Self.feature()
    try Self.run(f, """
      state.m = { __index = 1, __newindex = 2, __len = 3, __metatable = 4, __pairs = 5, __name = 'n', __eq = 6, [1.5] = 'f', [2] = 'two', [-1] = 'neg', [true] = 'b' }
      state.holes = { 1, nil, 3, nil, 5 }
      state.nul = { json.null, json.null, x = json.null }
      local big = {} for i = 1, 100 do big['k' .. i] = i end state.big = big
      """)
    for _ in 0..<2 {
      try Self.run(f, """
        local function same(p, plain)
          local a = { #p, rawlen(p), select('#', table.unpack(p)), p.__index, p.__len, p.__metatable, p[1.5], p[2], p[2.0], p[-1], p[true], getmetatable(p), rawget(p, '__len') }
          local b = { #plain, rawlen(plain), select('#', table.unpack(plain)), plain.__index, plain.__len, plain.__metatable, plain[1.5], plain[2], plain[2.0], plain[-1], plain[true], nil, rawget(plain, '__len') }
          for i = 1, 13 do assert(a[i] == b[i], 'mismatch at ' .. i .. ': ' .. tostring(a[i]) .. ' vs ' .. tostring(b[i])) end
          local n1, n2 = 0, 0
          for k, v in pairs(p) do n1 = n1 + 1 assert(plain[k] == v) end
          for k, v in pairs(plain) do n2 = n2 + 1 end
          assert(n1 == n2, 'pairs count')
          assert(not pcall(setmetatable, p, {}))
          assert(p[0/0] == nil)
          assert(p[nil] == nil)
        end
        local function copy(t) local c = {} for k, v in pairs(t) do c[k] = v end return c end
        for _, name in ipairs({ 'm', 'holes', 'nul', 'big', 'flat' }) do
          local p = state[name]
          local plain = copy(p)
          same(p, plain) same(p, plain) same(p, plain)
        end
        local s = json.encode(state.flat) assert(s, s)
        assert(table.concat(state.list, ',') == '3,1,2')
        """)
    }
    try Self.probe(f)
  }

  @Test func rollbackOfBigActionThatPromoted() throws {
    let f = try Self.feature()
    try Self.fails(f, """
      local s = 0
      for i, m in ipairs(state.many) do s = s + m.n + m.n end
      for i = 1, 10 do state.many[i].t = { i } end
      for i = 1, 10 do state.many[i].t = nil end
      for i, m in ipairs(state.many) do s = s + m.n + m.n end
      state.many[1].t = {}
      error('x')
      """)
    try Self.probe(f)
    try Self.run(f, "local s = 0 for i, m in ipairs(state.many) do s = s + m.n + m.n end K.m = state.many[5]")
    try Self.run(f, "local s = 0 for i, m in ipairs(state.many) do s = s + m.n + m.n end")
    try Self.fails(f, "for i = 1, 5000 do state.many[i].t = { v = i } state.many[i].t.v = -i end error('x')")
    try Self.run(f, "K.m.t = { 1 } assert(rawequal(K.m, state.many[5]))")
    try Self.probe(f)
  }

  /// Host writes (time travel restores with setState) while kept proxies hold flat reads.
  @Test func hostWritesAndTimeTravel() throws {
    let f = try Self.feature()
    try Self.run(f, Self.readTwice + "K.fl = state.flat K.rec = state.rec r2(state.flat) r2(state.flat) r2(state.rec)")
    try Self.run(f, Self.readTwice + "r2(state.flat) r2(state.flat)")
    let start = try f.state()
    try f.setState(["flat": ["a": 5], "list": [1, 2, 3]])
    try Self.run(f, Self.readTwice + "r2(state.flat) r2(state.flat) r2(state) r2(state) K.fl.t = {} K.fl.t.x = 1")
    try Self.probe(f)
    try f.setState(start)
    try Self.run(f, Self.readTwice + "r2(state.flat) r2(state.flat) r2(state) r2(state)")
    try Self.fails(f, Self.readTwice + "state.flat.t = { 1 } r2(state) state.flat.t[1] = 2 error('x')")
    try Self.probe(f)
    try f.setState(["only": 1])
    try Self.run(f, Self.readTwice + "r2(state) r2(state) state.x = 1")
    try Self.fails(f, Self.readTwice + "state.t = { 1 } local t = state.t t[1] = 2 error('x')")
    try Self.probe(f)
  }

  @Test func hotSwapWithMigrate() throws {
    let f = try Self.feature()
    try Self.run(f, Self.readTwice + "r2(state.flat) r2(state.flat) r2(state.rec) r2(state.rec)")
    try f.swap(toSource: Self.source.replacingOccurrences(
      of: "\nreturn F",
      with: "\nfunction F.migrate(state) local fl = state.flat local _ = fl.a, fl.a fl.t = { 1 } fl.t[1] = 2 end\nreturn F"))
    try Self.probe(f)
    #expect(try f.state()["flat"]["t"][1] == 2)
    try Self.fails(f, "state.flat.t[1] = 3 error('x')")
    let before = try f.state()
    #expect(throws: LuaFeatureError.self) {
      try f.swap(toSource: Self.source.replacingOccurrences(
        of: "\nreturn F",
        with: "\nfunction F.migrate(state) local fl = state.other local _ = fl.n, fl.n fl.t = { 1 } error('no') end\nreturn F"))
    }
    #expect(try f.state() == before)
    try Self.probe(f)
  }

  /// Memory and the limit under churn: tables read twice, then dropped from the state.
  @Test func churnAndTheLimit() throws {
    let f = try Self.feature()
    // Measure what giving 1000 new tables flat reads costs, fresh.
    func cost(_ tag: String) throws -> Int {
      try Self.run(f, "local p = {} for i = 1, 1000 do p[i] = { a = i } end state.pool = p")
      try Self.run(f, "for _, t in ipairs(state.pool) do local _ = t.a end")  // warm
      let before = f.memoryInUse()
      try Self.run(f, "for _, t in ipairs(state.pool) do local _ = t.a end")  // lasting
      let after = f.memoryInUse()
      return after - before
    }
    let first = try cost("fresh")
    // Churn: 20 rounds of 1000 tables each read twice then dropped.
    let m0 = f.memoryInUse()
    for _ in 0..<20 {
      try Self.run(f, "local p = {} for i = 1, 1000 do p[i] = { a = i } end state.churn = p")
      try Self.run(f, "for _, t in ipairs(state.churn) do local _ = t.a, t.a end")
      try Self.run(f, "state.churn = nil")
    }
    let m1 = f.memoryInUse()
    #expect(m1 < m0 + 512 * 1024, "churn kept memory: \(m0) bytes before, \(m1) after")
    for _ in 0..<70 { try Self.run(f, "state.tick = (state.tick or 0) + 1") }
    let later = try cost("after churn")
    #expect(later > first / 2, "flat reads no longer given after churn: \(first) vs \(later)")
    try Self.probe(f)
  }

  /// Outside a transaction (the REPL's evaluate reaches the sandbox's globals, K among them):
  /// every write through a flat-read proxy must raise.
  @Test func writesOutsideATransaction() throws {
    let f = try Self.feature()
    try Self.run(f, Self.readTwice + """
      K.fl = state.flat K.o = state.other K.l = state.list
      r2(state.flat) r2(state.flat) r2(state.other) r2(state.other) r2(state.list) r2(state.list)
      K.jt = require('composable.journal').table() K.jt.a = 1 r2(K.jt) r2(K.jt)
      """)
    try Self.run(f, Self.readTwice + "r2(K.fl) r2(K.o) r2(K.l) r2(state) r2(state) r2(K.jt)")
    let before = try f.state()
    for code in [
      "K.fl.a = 5", "rawset(K.fl, 'a', 6)", "table.insert(K.l, 9)", "table.remove(K.l)",
      "table.sort(K.l)", "table.sort(K.l, function(a, b) return a > b end)",
      "table.move(K.l, 1, 2, 2)", "K.o.n = {}", "state.flat.a = 7", "K.jt.a = 2",
      "local t = {} t.x = K.fl t.x.a = 8", "local _ = K.fl.a, K.fl.a K.fl.b = 3",
    ] {
      var threw = false
      do { _ = try f.evaluate("(function() \(code) end)()") } catch { threw = true }
      #expect(threw, "write outside a transaction succeeded: \(code)")
    }
    #expect(try f.state() == before)
  }

  /// Over the limit: sorts give flat reads for the action only; a comparator storing a table.
  @Test func overTheLimitSortsAndStores() throws {
    let f = try Self.feature()
    try Self.run(f, "for _, m in ipairs(state.many) do local _ = m.n, m.n end")  // 4096 lasting
    try Self.run(f, "for _, m in ipairs(state.many) do local _ = m.n, m.n end")
    try Self.fails(f, """
      table.sort(state.recs, function(a, b)
        if not a.t then a.t = { z = 1 } a.t.z = 2 end
        return a.n < b.n
      end)
      for _, r in ipairs(state.recs) do r.t.z = 3 end
      error('x')
      """)
    try Self.run(f, "table.sort(state.recs, function(a, b) return a.n < b.n end) K.r = state.recs[1]")
    try Self.run(f, "table.sort(state.recs, function(a, b) return a.n > b.n end) state.recs[2].t = {1}")
    try Self.probe(f)
    try Self.run(f, "state.many = nil")
    _ = f.memoryInUse()
    for _ in 0..<70 { try Self.run(f, "state.tick = (state.tick or 0) + 1") }
    try Self.run(f, "local _ = state.flat.a, state.flat.a K.r.t = { 2 }")
    try Self.probe(f)
  }

  /// The same table under two parents, one read flat, the other path storing a table.
  @Test func sharedTableTwoParents() throws {
    let f = try Self.feature()
    try Self.run(f, "state.p1 = { c = state.flat } state.p2 = { c = state.flat }")
    try Self.run(f, "local a, b = state.p1.c, state.p2.c assert(rawequal(a, b)) local _ = a.a, b.a, a.a")
    try Self.run(f, "local _ = state.p1.c.a, state.p2.c.a")
    try Self.fails(f, "state.p2.c.t = { 1 } state.p1.c.t[1] = 5 K.x = state.p1.c.t error('x')")
    try Self.run(f, "state.p2.c.t = { 1 }")
    try Self.fails(f, "state.p1.c.t[1] = 5 error('x')")
    try Self.probe(f)
    try Self.run(f, "state.p1.c.t = nil local _ = state.p2.c.a, state.p2.c.a")
    try Self.fails(f, "table.insert(state.list, state.p1.c) state.list[#state.list].t = {} state.p2.c.t.k = 1 error('x')")
    try Self.probe(f)
  }

  /// The probe reaches every table (without its error, each carries the marker).
  @Test func probeReachesEverything() throws {
    let f = try Self.feature()
    try Self.run(f, "local _ = state.flat.a, state.flat.a")
    try Self.run(f, Self.probe.replacingOccurrences(of: "error(\"probe\")", with: ""))
    let s = try f.state()
    #expect(s["rec"]["sub"]["__probe"] == true && s["many"][5000]["__probe"] == true
      && s["flat"]["__probe"] == true && s["__probe"] == true)
  }

  /// A flat-read proxy as a chunk's _ENV; bookkeeping tables with flat reads, rolled back.
  @Test func envAndBookkeeping() throws {
    let f = try Self.feature()
    try Self.run(f, "local _ = state.flat.a, state.flat.a K.jt = require('composable.journal').table() K.jt.a = 1")
    try Self.run(f, "local _ = state.flat.a, state.flat.a, K.jt.a, K.jt.a")
    try Self.fails(f, """
      load("x = 5 y = { z = 0 } y.z = 1 a = a + 1", "c", "t", state.flat)()
      local y = state.flat.y y.z = 2
      K.jt.t = { q = 1 } K.jt.t.q = 2 local _ = K.jt.a, K.jt.a K.jt.a = 3
      K.y = state.flat.y
      error('x')
      """)
    try Self.run(f, "assert(K.jt.a == 1 and K.jt.t == nil, tostring(K.jt.a) .. tostring(K.jt.t)) K.y.z = 10 assert(state.flat.y == nil)")
    try Self.run(f, "load('y = { z = 0 }', 'c', 't', state.flat)() local _ = state.flat.a, state.flat.a")
    try Self.fails(f, "local y = state.flat.y y.z = 4 error('x')")
    try Self.probe(f)
  }
}
