import Clocks
import Composable
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// Attacks on views (Transaction.c, "Views") from the host's side and from what earlier attacks
/// left out: host writes, hot reloads with `migrate`, restores, effects reading between actions,
/// the entry cap, collections, rollbacks, sorts that write, moves and `pairs` while writing.
/// `CHECK(t)` reads every key of `t` both ways, `pairs` (the real table) and indexing (the view),
/// and raises if they differ: a view showing what its table no longer holds.
@Suite struct ViewsHostAttackTests: AttackSuite {
  /// What the code may use besides the state: CHECK, effects.
  static let globals = """
    local PROBES = { "a", "b", "c", "x", "y", "n", "name", "sub", "v", "seen" }
    function CHECK(t, path, skip)
      path = path or "state"
      local seen = {}
      for k, v in pairs(t) do
        seen[k] = true
        local r = t[k]
        if not rawequal(r, v) then
          error("stale read at " .. path .. "." .. tostring(k) .. ": " .. tostring(r) .. " vs " .. tostring(v))
        end
        if type(v) == "table" and not (skip and skip[k]) then CHECK(v, path .. "." .. tostring(k)) end
      end
      for _, k in ipairs(PROBES) do
        if not seen[k] and t[k] ~= nil then error("stale read at " .. path .. "." .. k .. " (absent)") end
      end
      for i = 1, #t + 3 do
        if not seen[i] and t[i] ~= nil then error("stale read at " .. path .. "[" .. i .. "] (absent)") end
      end
    end
    local effect = require("composable.effect")
    """

  /// Besides code: `spawn` starts an effect that reads the state before and after a second's
  /// sleep and sends what it saw (`saw`, stored in `state.seen`).
  static let effectActions = """
    if action.type == "spawn" then
      return effect.run(function(send)
        local r = state.rec
        local log = {}
        log[#log + 1] = r.a.x; log[#log + 1] = r.a.x; log[#log + 1] = state.items[1].name
        log[#log + 1] = state.items[1].name
        send({ type = "saw0" })
        sleep(1)
        log[#log + 1] = r.a.x; log[#log + 1] = state.rec.a.x
        log[#log + 1] = #state.items; log[#log + 1] = state.items[1].name
        log[#log + 1] = tostring(r.c and r.c.y)
        local ok = pcall(CHECK, state, "state", { big = true })
        log[#log + 1] = tostring(ok)
        send({ type = "saw", text = table.concat(log, ",") })
      end)
    elseif action.type == "saw0" then
      return
    elseif action.type == "saw" then
      state.seen = action.text
      return
    end
    """

  static func source(migrate: String = "", persist: String = "") -> String {
    AttackFeature.source(
      globals: globals, fields: persist + "\n" + migrate,
      initialState: ViewsAttackTests.initialState, reduce: effectActions)
  }

  static func feature(_ source: String = source()) throws -> LuaFeature {
    try AttackFeature.make(source)
  }

  static let check = "CHECK(state, 'state', { big = true })\n"
  static let sweep = "for _, b in ipairs(state.big) do local _ = b.v end\n"
  /// Reads that give views (a table holding tables read twice in one action).
  static let giveViews = """
    for _ = 1, 3 do
      local r = state.rec
      local _ = r.a, r.b, r.a.x, r.b.x
      local it = state.items
      for i = 1, #it do local _ = it[i], it[i].sub, it[i].sub.v, it[i].name end
      local g = state.groups
      local _ = g[1], g[2], g[1][1], g[1][2].n
    end
    K.rec = state.rec; K.a = state.rec.a; K.items = state.items; K.first = state.items[1]
    K.g1 = state.groups[1]

    """

  static let newState: LuaValue = [
    "rec": ["a": ["x": 10], "b": ["x": 20]],
    "items": [
      ["name": "q", "n": 1, "sub": ["v": 100]], ["name": "r", "n": 2, "sub": ["v": 200]],
    ],
    "groups": [[["n": 7], ["n": 8]]],
  ]

  // MARK: - The host's writes

  @Test func setStateAfterViewsThenKeptProxies() throws {
    let f = try Self.feature()
    Self.ok(f, Self.giveViews)
    Self.ok(f, Self.giveViews)
    try f.setState(Self.newState)
    Self.ok(
      f,
      "state.seen = state.rec.a.x .. ',' .. state.rec.b.x .. ',' .. state.items[1].sub.v .. ','"
        + " .. #state.items .. ',' .. state.groups[1][1].n\n" + Self.check)
    try Self.expectSeen(f, "10,20,100,2,7")
    // Writes through proxies of the old tables and through the new ones, then a failure.
    try Self.fails(
      f,
      """
      K.a.x = 99; K.rec.b = 5; K.first.sub.v = -1; K.g1[1] = 0
      state.rec.a.x = 7; state.items[1].sub.v = 8; table.remove(state.items, 1)
      local _ = state.rec.a, state.rec.a, state.items[1], state.items[1]
      state.items[1].name = "w"
      error("x")
      """)
    Self.ok(f, "CHECK(K.rec, 'K.rec'); CHECK(K.items, 'K.items'); " + Self.check)
    // The old tables, written (detached), then stored into the state again.
    Self.ok(f, "K.a.x = 99; K.first.sub.v = -1")
    #expect(try f.state()["rec"]["a"]["x"] == 10)
    Self.ok(f, "state.rec = K.rec; state.items = K.items\n" + Self.check)
    Self.ok(
      f, "state.seen = state.rec.a.x .. ',' .. state.items[1].sub.v .. ',' .. #state.items")
    try Self.expectSeen(f, "99,-1,10")
    try Self.fails(
      f,
      "local a = state.rec.a; a.x = 3; K.a.x = 4; state.items[1].sub.v = 5; "
        + "table.insert(state.items, 1, {name = 'i'}); state.items[1].name = 'j'; error('x')")
    Self.ok(f, Self.check)
  }

  @Test func replaceStateRepeatedlyWithViewsBetween() throws {
    let f = try Self.feature()
    for round in 0..<4 {
      Self.ok(f, Self.giveViews)
      if round % 2 == 0 {
        try f.setState(Self.newState)
      } else {
        try f.setState([
          "rec": ["a": ["x": .integer(round)], "b": ["x": 2]],
          "items": [["name": "z", "sub": ["v": .integer(round)]]],
          "groups": [[["n": 1], ["n": 2]]],
        ])
      }
      Self.ok(f, Self.check + "CHECK(K.rec, 'K.rec'); CHECK(K.items, 'K.items')")
      try Self.fails(
        f, "state.rec.a.x = 'w'; K.rec.a.x = 'k'; state.items[1].sub.v = 'w'; error('x')")
    }
  }

  // MARK: - Hot reload and restore

  @Test func swapWithMigrateWritingViewedTables() throws {
    let f = try Self.feature()
    Self.ok(f, Self.giveViews)
    Self.ok(f, Self.giveViews)
    let migrate = """
      function F.migrate(state)
        local r = state.rec
        local _ = r.a, r.a, r.a.x
        r.a = { x = 100 }
        r.b.x = 200
        local _ = state.items[1], state.items[1].name
        table.remove(state.items, 1)
        table.sort(state.items, function(p, q) return p.n > q.n end)
        local _ = state.items[1].name, state.items[1].name
        state.rec.c = { y = { 1 } }
        local _ = r.c.y, r.c.y[1]
      end
      """
    try f.swap(toSource: Self.source(migrate: migrate))
    Self.ok(
      f,
      Self.check
        + "state.seen = state.rec.a.x .. ',' .. state.rec.b.x .. ',' .. state.items[1].name .. ','"
        + " .. #state.items .. ',' .. state.rec.c.y[1]")
    try Self.expectSeen(f, "100,200,j,9,1")
    try Self.fails(
      f, "state.rec.a.x = 0; state.items[1].sub.v = 0; state.rec.c.y[1] = 0; error('x')")
    // A migrate that fails after writing through views: the old code stays, the state as it was.
    Self.ok(f, Self.giveViews)
    let before = try f.state()
    let failing = """
      function F.migrate(state)
        local r = state.rec
        local _ = r.a, r.a, r.b
        r.a.x = "migrated"; r.b = nil
        table.insert(state.items, 1, { name = "m", sub = { v = 0 } })
        local _ = state.items[1].sub, state.items[1].sub
        state.items[1].sub.v = 5
        error("refused")
      end
      """
    #expect(throws: (any Error).self) { try f.swap(toSource: Self.source(migrate: failing)) }
    #expect(try f.state() == before)
    Self.ok(f, Self.check + "CHECK(K.rec, 'K.rec'); CHECK(K.items, 'K.items')")
    try Self.fails(f, "K.rec.a.x = 1; K.items[1].sub.v = 1; state.rec.b.x = 1; error('x')")
  }

  @Test func restoreWithSelectAndMigrateAfterViews() async throws {
    let persist = """
      local composable = require("composable")
      F.persist = composable.persist{ path = "attack.saved.lua", select = "rec", debounce = 0 }
      """
    let migrate = """
      function F.migrate(state)
        local r = state.rec
        local _ = r.a, r.a, r.a.x
        r.a.x = r.a.x * 2
        r.d = { e = { 1, 2 } }
        local _ = r.d.e, r.d.e[1]
      end
      """
    let files = FileClient.inMemory([
      "attack.saved.lua": "return { a = { x = 5 }, b = { x = 6 } }\n"
    ])
    let f = try Self.feature(Self.source(migrate: migrate, persist: persist))
    Self.ok(f, Self.giveViews)
    Self.ok(f, Self.giveViews)
    try await f.restorePersisted(files: files) { Issue.record("\($0)") }
    Self.ok(
      f,
      Self.check + "state.seen = state.rec.a.x .. ',' .. state.rec.b.x .. ',' .. state.rec.d.e[2]")
    try Self.expectSeen(f, "10,6,2")
    try Self.fails(f, "K.a.x = 0; state.rec.a.x = 0; state.rec.d.e[1] = 9; error('x')")
    Self.ok(f, "CHECK(K.rec, 'K.rec')\n" + Self.check)
  }

  // MARK: - Effects reading between actions

  @Test func anEffectReadsBetweenActionsThroughViews() async throws {
    let clock = TestClock()
    let feature = try Self.feature()
    Self.ok(feature, Self.giveViews)
    let store = TestStore(
      initialState: try feature.state(),
      reducer: { LuaFeatureReducer<LuaValue>(feature: feature, dependencies: $0) },
      dependencies: { $0.clock = clock })
    store.exhaustivity = .off(showSkippedAssertions: false)
    await store.send(["type": "spawn"])
    await store.receive(where: { $0["type"] == "saw0" })
    await store.send([
      "type": "x",
      "code": .string(
        LuaString(
          Self.giveViews + """
            state.rec.a.x = 42; table.remove(state.items, 1)
            local _ = state.items[1], state.items[1].name
            state.rec.c = { y = 'cy' }
            local _ = state.rec.c, state.rec.c.y
            """)),
    ])
    await clock.advance(by: .seconds(1))
    await store.receive(where: { $0["type"] == "saw" })
    let seen = store.state["seen"]
    #expect(seen == "1,1,a,a,42,42,9,b,cy,true", "observed \(seen)")
    await store.finish()
  }

  // MARK: - Rollbacks of actions that gave views

  @Test func rollbackOfAnActionThatGaveViews() throws {
    let f = try Self.feature()
    Self.ok(f, Self.giveViews)
    try Self.fails(
      f,
      Self.giveViews + """
        local r = state.rec
        r.a.x = 50; r.c = { y = { 1 } }
        local _ = r.c.y, r.c.y, r.c.y[1]
        table.insert(state.items, 1, { name = "z", sub = { v = 0 } })
        local _ = state.items[1].name, state.items[1].sub, state.items[1].sub.v
        K.z = state.items[1]; K.c = r.c
        error("x")
        """)
    Self.ok(
      f,
      Self.check
        + "state.seen = state.rec.a.x .. tostring(state.rec.c) .. state.items[1].name .. #state.items"
    )
    try Self.expectSeen(f, "1nila10")
    // Proxies kept from the rolled-back action: adopted tables given back, written now.
    Self.ok(f, "CHECK(K.z, 'K.z'); CHECK(K.c, 'K.c'); K.z.sub.v = 1; K.c.y[1] = 2")
    #expect(try f.state()["items"][1]["name"] == "a")
    try Self.fails(
      f,
      "state.rec.c = K.c; state.rec.c.y[1] = 3; local _ = state.rec.c.y, state.rec.c.y; state.rec.c.y[1] = 4; error('x')"
    )
    Self.ok(f, Self.check)
  }

  // MARK: - The cap

  @Test func theCapWithForgottenKeysReadAgain() throws {
    let f = try Self.feature()
    // No sweep: fewer than 4096 new proxies an action.
    Self.ok(f, "local b = state.big; for i = 1, 3000 do local _ = b[i] end")
    Self.ok(f, "local b = state.big; for i = 3001, 5000 do local _ = b[i] end")
    Self.ok(
      f,
      """
      local b = state.big
      for i = 1, 5000 do local _ = b[i] end
      for i = 1, 5000 do local _ = b[i] end
      b[10] = { v = -10 }; rawset(b, 4500, { v = -4500 }); b[4999] = nil
      local _ = b[10].v, b[4500].v, b[10].v, b[4500].v
      table.insert(state.items, { name = "k" })
      CHECK(b, "big")
      """)
    Self.ok(
      f,
      """
      local b = state.big
      for i = 4990, 5000 do local _ = b[i] end
      b[4999] = { v = 1 }
      table.sort(b, function(p, q) return (p and p.v or 0) < (q and q.v or 0) end)
      CHECK(b, "big")
      """)
    try Self.fails(
      f,
      "local b = state.big; for i = 1, 5000 do local _ = b[i], b[i] end; "
        + "b[1].v = 'w'; b[4096].v = 'w'; b[4097].v = 'w'; b[5000].v = 'w'; error('x')")
    Self.ok(f, "CHECK(state.big, 'big')")
  }

  // MARK: - Collections

  @Test func proxiesWithViewsCollectedThenMadeAgain() throws {
    let f = try Self.feature()
    Self.ok(f, "local g = state.groups; local _ = g.x, g.x, g.x")
    Self.ok(f, "local _ = state.groups[1], state.items[2] " + Self.sweep)  // held by views only
    Self.ok(
      f,
      """
      local c = state.groups[1]
      local _ = c[1], c[1], c[2].n
      local it = state.items; local _ = it[2].sub, it[2].sub
      table.insert(state.groups, { { n = 9 } })  -- groups read through C for good
      K = nil
      """)
    // Garbage, so that the collector runs; then a failed action (a full collection).
    Self.ok(f, "local t = {} for i = 1, 300000 do t[i % 100] = { i } end")
    try Self.fails(f, "error('collect')")
    Self.ok(
      f,
      Self.check
        + """
        local c = state.groups[1]
        local _ = c[1], c[1], c[2].n
        state.seen = c[1].n .. "," .. c[2].n .. "," .. #state.groups
        """)
    try Self.expectSeen(f, "1,2,3")
    try Self.fails(
      f, "local c = state.groups[1]; c[1].n = 'w'; c[2] = nil; state.items[2].sub.v = 0; error('x')"
    )
    Self.ok(f, Self.check)
  }

  /// Past the limit of lasting reads, a collection, then a recount with flat reads and views
  /// mixed.
  @Test func theLastingLimitRecountedAfterACollection() throws {
    let f = try Self.feature()
    Self.ok(f, "local b = state.big; for i = 1, 3000 do local _ = b[i].v end")
    Self.ok(f, "local b = state.big; for i = 3001, 5000 do local _ = b[i].v end")
    Self.ok(f, "local b = state.big; for i = 1, 3000 do local _ = b[i].v end")
    Self.ok(f, Self.giveViews + "local b = state.big; for i = 3001, 5000 do local _ = b[i].v end")
    // Drop many lasting ones: the big list replaced (its old proxies become garbage).
    Self.ok(f, "local b = {} for i = 1, 10 do b[i] = { v = -i } end state.big = b")
    Self.ok(f, "local t = {} for i = 1, 300000 do t[i % 100] = { i } end")
    try Self.fails(f, "error('collect')")
    Self.ok(f, Self.giveViews + Self.giveViews + Self.check + "CHECK(state.big, 'big')")
    try Self.fails(
      f,
      Self.giveViews + "state.rec.a.x = 0; state.items[3].sub.v = 0; state.big[1].v = 0; error('x')"
    )
    Self.ok(f, Self.check + "CHECK(state.big, 'big')")
  }

  // MARK: - Sorts, moves, pairs

  @Test func aSortWhoseOrderFunctionWritesTheState() throws {
    let f = try Self.feature()
    Self.ok(f, Self.giveViews)
    Self.ok(
      f,
      Self.giveViews
        + """
        local it = state.items
        table.sort(it, function(p, q)
          state.count = (state.count or 0) + 1
          p.touched = true
          local _ = it[1], it[1].sub, it[2].name
          return p.n > q.n
        end)
        local _ = it[1].name, it[1].name, it[10].name
        CHECK(it, "items")
        state.seen = it[1].name .. it[10].name .. K.first.name
        """)
    try Self.expectSeen(f, "jaa")
    Self.ok(f, Self.check)
    try Self.fails(
      f,
      """
      local it = state.items
      table.sort(it, function(p, q) state.rec.a.x = p.n; return p.n < q.n end)
      local _ = it[1].name, it[1].name
      it[1].sub.v = 'w'; it[10].name = 'w'; K.first.sub.v = 'k'
      error('x')
      """)
    Self.ok(f, Self.check)
  }

  @Test func tableMoveIntoAViewedArray() throws {
    let f = try Self.feature()
    Self.ok(f, "state.dst = { { n = 1 }, { n = 2 }, { n = 3 } }")
    Self.ok(
      f,
      """
      local d = state.dst
      local _ = d[1], d[2], d[3], d[1].n, d[2].n
      K.d2 = d[2]
      table.move(state.items, 1, 3, 2, d)
      CHECK(d, "dst")
      state.seen = d[1].n .. d[2].name .. d[3].name .. d[4].name .. #d
      """)
    try Self.expectSeen(f, "1abc4")
    Self.ok(
      f,
      """
      local d = state.dst
      local _ = d[1], d[2], d[3]
      table.move(d, 2, 4, 1)
      table.move(d, 1, 2, 3)
      CHECK(d, "dst")
      d[1].name = "moved"
      state.seen = state.items[1].name .. d[3].name .. #d
      """)
    try Self.expectSeen(f, "movedmoved4")
    try Self.fails(
      f,
      "local d = state.dst; local _ = d[1], d[1]; table.move(state.groups[1], 1, 3, 1, d); "
        + "d[1].n = 'w'; K.d2.n = 'k'; state.items[2].sub.v = 'w'; error('x')")
    Self.ok(f, Self.check)
  }

  @Test func pairsOverAViewedTableWhileWritingIt() throws {
    let f = try Self.feature()
    Self.ok(f, Self.giveViews)
    Self.ok(
      f,
      Self.giveViews
        + """
        local r = state.rec
        for k, v in pairs(r) do
          local _ = r[k], r[k].x
          r[k] = { x = v.x * 10, old = v }
          local _ = r[k].x, r[k].old.x
        end
        local it = state.items
        for i, v in pairs(it) do
          it[i] = it[11 - i] and { name = it[11 - i].name, sub = v.sub } or nil
          local _ = it[i], it[i] and it[i].sub
        end
        CHECK(state, "state", { big = true })
        state.seen = r.a.x .. r.b.x .. r.a.old.x .. it[1].name .. it[1].sub.v
        """)
    try Self.expectSeen(f, "10201j1")
    try Self.fails(
      f,
      """
      local r = state.rec
      for k, v in pairs(r) do r[k] = nil; local _ = r[k]; v.x = 'w' end
      K.a.x = 'k'; K.rec.a = 'k'
      error('x')
      """)
    Self.ok(f, Self.check)
  }
}
