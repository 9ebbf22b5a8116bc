import ComposableLua
import LuaKit
import TestSupport
import Testing

/// Attacks on the short path of a scalar write through a proxy with a view (lk_view_newindex ->
/// lk_write_scalar) and through a flat-read proxy: each action is Lua code run against the
/// state (`K` a module local kept across actions); `warm` reads every table twice so that,
/// after two actions, `rec`, `recs` and the root have views and `flat` has flat reads.
@Suite struct ViewScalarWriteAttackTests: AttackSuite {
  static let source = AttackFeature.source(
    initialState: """
      return {
        rec = { a = 1, b = "x", sub = { v = 0, deep = { w = 1 } }, other = { n = 1 } },
        flat = { a = 1, b = 2 },
        recs = { { n = 3, t = { z = 1 } }, { n = 1, t = { z = 2 } }, { n = 2, t = { z = 3 } } },
      }
      """)

  static let warm = """
    local function warm()
      for _ = 1, 2 do
        local function T(t) return type(t) == 'table' and t or {} end
        local r = state.rec
        local _ = r.a, r.b, r.sub, T(r.sub).v, T(r.sub).deep, T(T(r.sub).deep).w, r.other, T(r.other).n, r.zz
        local f = state.flat
        local _ = f.a, f.b, f.zz
        for i, e in ipairs(state.recs) do local _ = e.n, e.t, T(e.t).z, e.x end
        local _ = state.recs.x
      end
    end
    warm()

    """

  static func feature(limits: LuaLimits = AttackFeature.unlimited) throws -> LuaFeature {
    let f = try AttackFeature.make(Self.source, limits: limits)
    try Self.run(f, Self.warm)
    try Self.run(f, Self.warm)
    return f
  }

  @Test func readBackInSameAndNextAction() throws {
    let f = try Self.feature()
    Self.ok(
      f,
      Self.warm + """
        local r = state.rec
        r.a = 2 assert(r.a == 2, 'a ' .. tostring(r.a))
        r.a = 3 r.a = 4 assert(r.a == 4)
        r.newkey = 'n' assert(r.newkey == 'n')
        r.b = nil assert(r.b == nil)
        for i = 1, 1000 do r.a = i; assert(r.a == i) end
        for i = 1, 100 do r['k' .. i] = i; assert(r['k' .. i] == i) end
        for i = 1, 100 do r['k' .. i] = nil; assert(r['k' .. i] == nil) end
        state.recs[1].n = 30 assert(state.recs[1].n == 30)
        state.recs.x = 'L' assert(state.recs.x == 'L')
        state.f2 = 1 assert(state.f2 == 1)
        """)
    Self.ok(
      f,
      Self.warm + """
        local r = state.rec
        assert(r.a == 1000, tostring(r.a)) assert(r.b == nil) assert(r.newkey == 'n') assert(r.k5 == nil)
        assert(state.recs[1].n == 30) assert(state.recs.x == 'L') assert(state.f2 == 1)
        local n = 0 for k in pairs(r) do n = n + 1 end
        assert(n == 4, 'keys ' .. n)  -- a, sub, other, newkey
        """)
  }

  @Test func scalarOverNestedTable() throws {
    let f = try Self.feature()
    // The view held the nested proxy: after the write the read gives the scalar.
    try Self.fails(
      f,
      Self.warm + """
        local r = state.rec
        local sub = r.sub
        r.sub = 5
        assert(r.sub == 5, 'stale ' .. tostring(r.sub))
        sub.v = 77  -- the detached table, written
        sub.deep.w = 78
        r.other = false
        assert(r.other == false)
        error('x')
        """)
    Self.ok(
      f,
      Self.warm + """
        local r = state.rec
        assert(type(r.sub) == 'table') assert(r.sub.v == 0, tostring(r.sub.v))
        assert(r.sub.deep.w == 1) assert(r.other.n == 1)
        r.sub.v = 9 r.sub.deep.w = 10 r.other.n = 11
        """)
    Self.ok(
      f,
      Self.warm + """
        local r = state.rec
        assert(r.sub.v == 9) assert(r.sub.deep.w == 10) assert(r.other.n == 11)
        r.sub = 'gone' K.r = r
        """)
    Self.ok(
      f,
      Self.warm + """
        assert(state.rec.sub == 'gone') assert(K.r.sub == 'gone')
        local n = 0 for k, v in pairs(state.rec) do n = n + 1 assert(type(v) ~= 'table' or k == 'other') end
        """)
    #expect(try f.state()["rec"]["sub"] == "gone")
    #expect(try f.state()["rec"]["sub"] == "gone")
  }

  @Test func oddKeysAndValues() throws {
    let f = try Self.feature()
    Self.ok(
      f,
      Self.warm + """
        local r = state.rec
        local keys = { '__index', '__newindex', '__len', '__metatable', '__pairs', '', string.rep('k', 100000), 'a\\0b', 'a\\0c', '\\0' }
        for i, k in ipairs(keys) do r[k] = i assert(r[k] == i, 'key #' .. i) end
        for i, k in ipairs(keys) do assert(r[k] == i, 'key again #' .. i) end
        assert(r['a'] == 1)
        r.inf = math.huge r.ninf = -math.huge r.maxi = math.maxinteger r.mini = math.mininteger
        r.fl = 0.1 r.negz = -0.0 r.t = true r.f = false
        assert(r.inf == math.huge and r.maxi == math.maxinteger and r.mini == math.mininteger)
        assert(math.type(r.maxi) == 'integer') assert(r.f == false)
        assert(1 / r.negz == -math.huge, 'neg zero')
        K.keys = keys
        """)
    Self.ok(
      f,
      Self.warm + """
        local r = state.rec
        for i, k in ipairs(K.keys) do assert(r[k] == i, 'next action key #' .. i) end
        assert(r.inf == math.huge and r.ninf == -math.huge and r.maxi == math.maxinteger)
        assert(1 / r.negz == -math.huge, 'neg zero next')
        """)
    let s = try f.state()["rec"]
    #expect(s["__index"] == 1)
    #expect(s[""] == 6)
  }

  /// Functions and coroutines are code, not data: every way of writing one into the state (the
  /// short path through a view or flat reads, the slow path under an integer key, a new table
  /// holding one, the table library, `rawset`) refuses it and rolls the action back, where they
  /// were kept and a save refused them later (an attacker's and a new user's finding).
  @Test(arguments: [
    "state.rec.a = function() return 1 end",
    "state.rec.b = coroutine.create(print)",
    "state.flat.a = print",
    "state.recs[1].n = print",
    "state.rec[1] = print",
    "state.rec.sub = { deep = { w = print } }",
    "table.insert(state.recs, coroutine.create(print))",
    "rawset(state.rec, 'a', print)",
    "state.rec.a = 1 state.rec.a = print",
  ])
  func functionsAndCoroutinesAreRefusedByEveryPath(write: String) throws {
    let f = try Self.feature()
    try Self.fails(f, Self.warm + write)
    do {
      try Self.run(f, Self.warm + write)
    } catch {
      #expect(
        "\(error)".contains(
          "cannot be kept in the state (state is data: tables, strings, numbers and booleans; "
            + "keep a name for what it does)"), "\(error)")
    }
    // NaN is data: kept, and read back as plain Lua would.
    let nan =
      "local n = 0/0 state.rec.a = n state.flat.a = n assert(state.rec.a ~= state.rec.a) assert(state.flat.a ~= state.flat.a)"
    Self.ok(f, Self.warm + nan)
    Self.ok(f, Self.warm + "assert(state.rec.a ~= state.rec.a) state.rec.a = 1 state.flat.a = 1")
  }

  @Test func failureKindsRollBack() throws {
    let f = try Self.feature(
      limits: LuaLimits(memory: 64 << 20, instructions: 50_000_000, seconds: nil))
    let writes =
      "local r = state.rec local fl = state.flat for i = 1, 2000 do r.a = i r['k'..(i%50)] = i fl.a = i fl['k'..(i%50)] = i state.recs[1].n = i end r.sub = 1 "
    try Self.fails(f, Self.warm + writes + "error('plain')")
    try Self.fails(f, Self.warm + writes + "error({ code = 1 })")
    try Self.fails(
      f, Self.warm + writes + "error(setmetatable({}, { __tostring = function() return 't' end }))")
    try Self.fails(f, Self.warm + writes + "while true do r.a = r.a + 1 end")
    try Self.fails(
      f, Self.warm + writes + "local t = {} for i = 1, 1e9 do t[i] = string.rep('x', 100) .. i end")
    try Self.fails(f, Self.warm + writes + "local t = {} t.t = t state.rec.cyc = t")
    try Self.fails(f, Self.warm + writes + "state.rec.sub = setmetatable({}, {})")
    Self.ok(
      f,
      Self.warm + """
        local r = state.rec
        assert(r.a == 1 and r.b == 'x' and r.sub.v == 0 and r.k1 == nil and state.flat.a == 1)
        assert(state.recs[1].n == 3)
        r.a = 5 r.sub.v = 6
        """)
    #expect(try f.state()["rec"]["a"] == 5)
    #expect(try f.state()["rec"]["sub"]["v"] == 6)
  }

  @Test func manyWritesUnderTheMemoryCap() throws {
    let f = try Self.feature(limits: LuaLimits(memory: 8 << 20, instructions: nil, seconds: nil))
    let before = try f.state()
    var failed = false
    do {
      try Self.run(
        f,
        Self.warm
          + "local r = state.rec local fl = state.flat for i = 1, 400000 do r.a = i fl.b = i end error('x')"
      )
    } catch {
      failed = true
      #expect("\(error)".contains("memory"), "not the memory cap: \("\(error)".prefix(300))")
    }
    #expect(failed)
    #expect(try f.state() == before)
    Self.ok(
      f,
      Self.warm
        + "assert(state.rec.a == 1) assert(state.flat.b == 2) state.rec.a = 7 state.flat.b = 8")
    #expect(try f.state()["rec"]["a"] == 7)
    #expect(try f.state()["flat"]["b"] == 8)
    // Distinct keys: the table grows too.
    let before2 = try f.state()
    failed = false
    do {
      try Self.run(
        f, Self.warm + "local r = state.rec for i = 1, 400000 do r['k' .. i] = i end error('x')")
    } catch { failed = true }
    #expect(failed)
    #expect(try f.state() == before2)
    Self.ok(f, Self.warm + "assert(state.rec.k1 == nil) state.rec.a = 9 assert(state.rec.a == 9)")
  }

  @Test func pcallKeepsWritesBeforeItsError() throws {
    let f = try Self.feature()
    Self.ok(
      f,
      Self.warm + """
        local r = state.rec
        local ok = pcall(function() r.a = 42 r.sub = 'S' state.flat.a = 43 error('in') end)
        assert(not ok)
        assert(r.a == 42 and r.sub == 'S' and state.flat.a == 43)
        """)
    Self.ok(
      f, Self.warm + "assert(state.rec.a == 42 and state.rec.sub == 'S' and state.flat.a == 43)")
  }

  @Test func coroutineAndSortComparator() throws {
    let f = try Self.feature()
    try Self.fails(
      f,
      Self.warm + """
        local co = coroutine.wrap(function()
          for i = 1, 10 do state.rec.a = i state.recs.x = i coroutine.yield() end
        end)
        for i = 1, 5 do co() end
        assert(state.rec.a == 5 and state.recs.x == 5)
        table.sort(state.recs, function(a, b)
          a.seen = (a.seen or 0) + 1 state.recs.y = 'c' state.rec.a = 'cmp'
          return a.n < b.n
        end)
        assert(state.recs[1].n == 1 and state.recs.y == 'c' and state.rec.a == 'cmp')
        assert(state.recs[1].t.z == 2)
        co()
        assert(state.rec.a == 6)
        error('x')
        """)
    Self.ok(
      f,
      Self.warm + """
        assert(state.rec.a == 1 and state.recs.x == nil and state.recs.y == nil)
        assert(state.recs[1].n == 3 and state.recs[1].seen == nil and state.recs[1].t.z == 1)
        table.sort(state.recs, function(a, b) a.seen = true state.recs.y = 'c' return a.n < b.n end)
        """)
    Self.ok(
      f,
      Self.warm + """
        assert(state.recs[1].n == 1 and state.recs.y == 'c' and state.recs[1].t.z == 2)
        state.recs[1].t = 0 assert(state.recs[1].t == 0)
        """)
  }

  @Test func writesOutsideAnAction() throws {
    let f = try Self.feature()
    Self.ok(
      f,
      Self.warm
        + "K.r = state.rec K.f = state.flat K.l = state.recs K.e = state.recs[1] K.s = state")
    Self.ok(f, Self.warm + "local _ = K.r.a, K.r.a, K.f.a, K.f.a, K.l.x, K.l.x, K.e.n, K.e.n")
    let before = try f.state()
    for code in [
      "K.r.a = 5", "K.r.zz = 'n'", "K.r.sub = 1", "K.r.a = nil", "K.f.a = 5", "K.f.zz = 1",
      "K.l.x = 1",
      "K.e.n = 1", "K.s.q = 1", "K.r[''] = 1",
    ] {
      var threw = false
      do { _ = try f.evaluate("(function() \(code) end)()") } catch { threw = true }
      #expect(threw, "write outside a transaction succeeded: \(code)")
    }
    #expect(try f.state() == before)
  }

  @Test func noRealTableHandedOut() throws {
    let f = try Self.feature()
    // A table value read through a view after scalar writes: a write through it must roll back.
    try Self.fails(
      f,
      Self.warm + """
        local r = state.rec
        r.a = 2 r.other = 3 r.sub.v = 4
        local s = r.sub
        r.sub = 'x' r.sub = nil
        K.got = { s, state.recs[1], state.recs[1].t }
        s.v = 100 s.deep.w = 100
        for _, t in ipairs(K.got) do t.probe = true end
        error('x')
        """)
    Self.ok(
      f,
      Self.warm + """
        local r = state.rec
        assert(r.sub.v == 0 and r.sub.probe == nil and r.sub.deep.w == 1 and state.recs[1].probe == nil)
        assert(state.recs[1].t.probe == nil)
        """)
  }

  /// A journaled table (composable.journal) holding tables, read in two actions, gets a view
  /// too; `was_set` and `had_element` read the journal the short path writes.
  @Test func journaledTableAndJournalQueries() throws {
    let f = try Self.feature()
    Self.ok(
      f,
      Self.warm + """
        local J = require('composable.journal')
        K.J = J
        K.jt = J.table() K.jt.sub = { v = 1 } K.jt.a = 1 K.jt.list = { { id = 'x', n = 1 } }
        """)
    for _ in 0..<2 {
      Self.ok(f, Self.warm + "local _ = K.jt.a, K.jt.sub, K.jt.sub.v, K.jt.list, K.jt.a, K.jt.sub")
    }
    try Self.fails(
      f,
      Self.warm + """
        local J, jt, r = K.J, K.jt, state.rec
        jt.a = 2 jt.sub = 'S' jt.new = 1
        assert(jt.a == 2 and jt.sub == 'S' and jt.new == 1)
        r.a = 5 r.sub = 'S' r.newk = 1 r.b = nil
        assert(J.was_set(r, 'a') and J.was_set(r, 'sub') and not J.was_set(r, 'newk') and J.was_set(r, 'b'))
        assert(J.had_element(r, 'sub', 'v', 0), 'had_element after a scalar over the table')
        error('x')
        """)
    Self.ok(
      f,
      Self.warm + """
        local jt = K.jt
        assert(jt.a == 1 and type(jt.sub) == 'table' and jt.sub.v == 1 and jt.new == nil, 'journaled table not rolled back')
        jt.sub.v = 2 jt.a = 3
        """)
    Self.ok(f, Self.warm + "assert(K.jt.sub.v == 2 and K.jt.a == 3)")
    for code in ["K.jt.a = 9", "K.jt.zz = 1", "K.jt.sub = 1"] {
      var threw = false
      do { _ = try f.evaluate("(function() \(code) end)()") } catch { threw = true }
      #expect(threw, "write outside a transaction succeeded: \(code)")
    }
    Self.ok(f, Self.warm + "assert(K.jt.a == 3 and K.jt.zz == nil and type(K.jt.sub) == 'table')")
  }

  /// The memory cap hit inside a pcall, by the journal or the real table growing under the
  /// short path: the write that failed left nothing (the view forgot the key, the real table
  /// kept its value), the reducer goes on, and the action's rollback is exact.
  @Test func memoryCapInsidePcall() throws {
    let f = try Self.feature(limits: LuaLimits(memory: 8 << 20, instructions: nil, seconds: nil))
    Self.ok(f, Self.warm + "K.bad = false K.last = 0 K.bad2 = false K.last2 = 0 K.n = 0")
    let before = try f.state()
    var failed = false
    do {
      try Self.run(
        f,
        Self.warm
          + """
          local r, fl = state.rec, state.flat
          local last, last2 = 0, 0
          local ok = pcall(function() for i = 1, 10000000 do r.a = i last = i fl.a = i last2 = i end end)
          if ok or r.a ~= last then K.bad = r.a end
          if fl.a ~= last2 then K.bad2 = fl.a end
          K.last = last
          local ok2 = pcall(function() for i = 1, 10000000 do r[K.keys[i % 64 + 1]] = i K.n = i end end)
          error('x')
          """.replacingOccurrences(of: "K.keys[i % 64 + 1]", with: "'k' .. i"))
    } catch { failed = true }
    #expect(failed)
    #expect(try f.state() == before)
    Self.ok(
      f,
      Self.warm + """
        assert(K.bad == false, 'view showed ' .. tostring(K.bad) .. ' after ' .. K.last)
        assert(K.bad2 == false, 'flat showed ' .. tostring(K.bad2))
        assert(K.last > 1000, 'too few writes ' .. K.last)
        local r = state.rec
        assert(r.a == 1 and r.k1 == nil and state.flat.a == 1)
        r.a = 2 r.k1 = 1 state.flat.a = 3
        """)
    #expect(try f.state()["rec"]["a"] == 2)
    #expect(try f.state()["flat"]["a"] == 3)
  }

  /// Writes reaching a view through `__index`/`__newindex` chains, and a view past its entries
  /// (5,000 keys holding tables, read in two actions).
  @Test func chainsAndAFullView() throws {
    let f = try Self.feature()
    Self.ok(f, Self.warm + "state.big = {} for i = 1, 5000 do state.big['e' .. i] = { n = i } end")
    for _ in 0..<2 {
      Self.ok(
        f,
        Self.warm
          + "local b = state.big for i = 1, 5000 do local _ = b['e' .. i], b['e' .. i].n end")
    }
    try Self.fails(
      f,
      Self.warm + """
        local b = state.big
        for i = 1, 5000, 7 do b['e' .. i] = i assert(b['e' .. i] == i) end
        for i = 1, 5000, 7 do assert(b['e' .. i] == i) end
        local p = setmetatable({}, { __index = state.rec, __newindex = state.rec })
        p.a = 'via' assert(state.rec.a == 'via' and p.a == 'via')
        p.sub = 'S' assert(state.rec.sub == 'S' and p.sub == 'S')
        local q = setmetatable({}, { __index = p, __newindex = function(t, k, v) state.rec[k] = v end })
        q.b = 'qb' assert(state.rec.b == 'qb' and q.b == 'qb')
        rawset(state.rec, 'a', 'raw') assert(p.a == 'raw' and state.rec.a == 'raw')
        error('x')
        """)
    Self.ok(
      f,
      Self.warm + """
        local b = state.big
        for i = 1, 5000 do assert(type(b['e' .. i]) == 'table' and b['e' .. i].n == i, 'e' .. i) end
        assert(state.rec.a == 1 and state.rec.b == 'x' and state.rec.sub.v == 0)
        for i = 1, 5000, 3 do b['e' .. i] = -i end
        """)
    Self.ok(
      f,
      Self.warm + """
        local b = state.big
        for i = 1, 5000 do local v = b['e' .. i] if (i - 1) % 3 == 0 then assert(v == -i, 'e' .. i) else assert(v.n == i) end end
        """)
  }

  /// A coroutine kept across actions writes through the view it captured: in a later action its
  /// writes roll back with that action; resumed outside an action, its write raises.
  @Test func coroutineKeptAcrossActions() throws {
    let f = try Self.feature()
    Self.ok(
      f,
      Self.warm + """
        local rec = state.rec
        K.co = coroutine.wrap(function()
          while true do
            rec.a = rec.a + 1 rec.b = 'b' .. rec.a
            local p = setmetatable({}, { __newindex = function(t, k, v) coroutine.yield() rec[k] = v end })
            p.c = rec.a
            coroutine.yield()
          end
        end)
        K.co()  -- a = 2, yields in p.c's __newindex
        assert(rec.a == 2 and rec.c == nil)
        """)
    try Self.fails(
      f,
      Self.warm
        + "K.co() assert(state.rec.c == 2) K.co() assert(state.rec.a == 3 and state.rec.b == 'b3') error('x')"
    )
    Self.ok(
      f,
      Self.warm
        + "assert(state.rec.a == 2 and state.rec.b == 'b2' and state.rec.c == nil, tostring(state.rec.c))"
    )
    let before = try f.state()
    var threw = false
    do { _ = try f.evaluate("K.co() K.co()") } catch { threw = true }
    #expect(threw, "a write outside an action from a kept coroutine succeeded")
    #expect(try f.state() == before)
    Self.ok(f, Self.warm + "assert(state.rec.a == 2 and state.rec.b == 'b2')")
  }
}
