import ComposableLua
import LuaKit
import TestSupport
import Testing

/// Attacks on views (Transaction.c, "Views"), by a tester sent to break them: each action
/// carries Lua code run against the state (`K` is a module local kept across actions).
@Suite struct ViewsAttackTests: AttackSuite {
  /// The state the views are attacked in (ViewsHostAttackTests' too): one array long enough
  /// that reading it all is a sweep, records holding records, arrays of arrays.
  static let initialState = """
    local big = {}
    for i = 1, 5000 do big[i] = { v = i } end
    local items = {}
    for i = 1, 10 do items[i] = { name = string.char(96 + i), n = i, sub = { v = i } } end
    return {
      big = big,
      items = items,
      groups = { { { n = 1 }, { n = 2 }, { n = 3 } }, { { n = 4 } } },
      rec = { a = { x = 1 }, b = { x = 2 } },
    }
    """

  static let source = AttackFeature.source(
    globals: "json = require(\"composable.json\")", initialState: initialState)

  static func feature() throws -> LuaFeature { try AttackFeature.make(Self.source) }

  /// Touches more than 4096 proxies: the action's new proxies are dropped at its end (a sweep).
  static let sweep = "for _, b in ipairs(state.big) do local _ = b.v end\n"

  // MARK: - Proxies unlinked by a sweep, then given a view

  /// A proxy kept in a module local across a sweep (its table forgot it), then given a view: a
  /// table.remove through it must still take its view back.
  @Test func removeThroughAProxyKeptAcrossASweep() throws {
    let f = try Self.feature()
    try Self.run(f, "K.items = state.items " + Self.sweep)
    try Self.run(
      f,
      """
      local p = K.items
      local _ = p[1], p[1], p[1].name, p[2].name
      table.remove(p, 1)
      state.seen = p[1].name .. "," .. p[2].name .. "," .. #p
      """)
    try Self.expectSeen(f, "b,c,9")
    // And the next action, reading from the root (which links the proxy again).
    try Self.run(f, "state.seen = state.items[1].name .. ',' .. state.items[2].name")
    try Self.expectSeen(f, "b,c")
  }

  /// The same without a module local: the child a view found in the sweep's action is held by
  /// that view, its table no longer linked to it.
  @Test func removeThroughAChildHeldByAViewAcrossASweep() throws {
    let f = try Self.feature()
    try Self.run(f, "local g = state.groups local _ = g.x, g.x, g.x")  // groups gets a view
    try Self.run(f, "local _ = state.groups[1] " + Self.sweep)  // its view holds groups[1]
    try Self.run(
      f,
      """
      local c = state.groups[1]
      local _ = c[1], c[1], c[1].n, c[2].n
      table.remove(c, 1)
      state.seen = c[1].n .. "," .. c[2].n .. "," .. #c
      """)
    try Self.expectSeen(f, "2,3,2")
  }

  /// A write through what the stale view hands out lands in a table no longer in the state.
  @Test func aWriteThroughAStaleChildIsNotLost() throws {
    let f = try Self.feature()
    try Self.run(f, "K.items = state.items " + Self.sweep)
    try Self.run(
      f,
      """
      local p = K.items
      local _ = p[1], p[1], p[1].name
      table.remove(p, 1)
      p[1].name = "written"
      """)
    let name = try f.state()["items"][1]["name"]
    #expect(name == "written", "observed \(name)")
  }

  /// A realistic sequence, no module local: the root has a view; the first action to read
  /// `todos` touches each todo and its tags (a sweep), so `todos`'s proxy, made then, is held by
  /// the root's view but forgotten by its table. Later actions remove a todo: the reads keep
  /// showing the removed one, action after action, and a write through them is lost.
  @Test func toggleAllThenRemoveATodo() throws {
    let source = """
      local F = {}
      function F.initial_state()
        local todos = {}
        for i = 1, 3000 do todos[i] = { title = "t" .. i, done = false, tags = { "x" } } end
        return { todos = todos, filter = "all" }
      end
      function F.reduce(state, action)
        if action.type == "filter" then
          state.filter = action.filter
          local _ = state.filter
        elseif action.type == "toggle_all" then
          for _, todo in ipairs(state.todos) do
            todo.done = not todo.done
            local _ = todo.tags[1]
          end
        elseif action.type == "remove" then
          local removed = table.remove(state.todos, action.index)
          state.last_removed = removed.title
        elseif action.type == "read_first" then
          state.first = state.todos[1].title
        elseif action.type == "rename_first" then
          state.todos[1].title = action.title
        end
      end
      return F
      """
    let f = try LuaFeature(source: LuaString(source), file: "todos.lua")
    _ = try f.step(["type": "filter", "filter": "done"])
    _ = try f.step(["type": "filter", "filter": "all"])
    _ = try f.step("toggle_all")
    _ = try f.step("read_first")
    _ = try f.step("read_first")  // todos gets a view, which finds todos[1]
    _ = try f.step(["type": "remove", "index": 1])
    #expect(try f.state()["last_removed"] == "t1")
    _ = try f.step("read_first")
    let first = try f.state()["first"]
    #expect(first == "t2", "observed \(first)")
    _ = try f.step(["type": "rename_first", "title": "renamed"])
    let title = try f.state()["todos"][1]["title"]
    #expect(title == "renamed", "observed \(title)")
  }

  @Test func insertThroughAProxyKeptAcrossASweep() throws {
    let f = try Self.feature()
    try Self.run(f, "K.items = state.items " + Self.sweep)
    try Self.run(
      f,
      """
      local p = K.items
      local _ = p[1], p[1], p[1].name, p[2].name
      table.insert(p, 1, { name = "new" })
      state.seen = p[1].name .. "," .. p[2].name .. "," .. #p
      """)
    try Self.expectSeen(f, "new,a,11")
  }

  /// A sort whose order function only reads (the reading path, 10 elements).
  @Test func readingSortThroughAProxyKeptAcrossASweep() throws {
    let f = try Self.feature()
    try Self.run(f, "K.items = state.items " + Self.sweep)
    try Self.run(
      f,
      """
      local p = K.items
      for i = 1, 10 do local _ = p[i], p[i] end
      table.sort(p, function(a, b) return a.n > b.n end)
      state.seen = p[1].name .. "," .. p[10].name
      """)
    try Self.expectSeen(f, "j,a")
  }

  /// A sort through the proxies (an order function that calls a function).
  @Test func proxySortThroughAProxyKeptAcrossASweep() throws {
    let f = try Self.feature()
    try Self.run(f, "K.items = state.items " + Self.sweep)
    try Self.run(
      f,
      """
      local p = K.items
      for i = 1, 10 do local _ = p[i], p[i] end
      table.sort(p, function(a, b) return tostring(a.n) > tostring(b.n) end)
      state.seen = p[1].name .. "," .. p[10].name
      """)
    // "9" > "8" > ... > "10" as strings
    try Self.expectSeen(f, "i,a")
  }

  // MARK: - Other ways a table changes

  /// table.move within one table and across tables, with the views filled first.
  @Test func movesBehindFilledViews() throws {
    let f = try Self.feature()
    let fill = "for _ = 1, 3 do for i = 1, 10 do local _ = state.items[i].sub.v end end "
    try Self.run(f, fill)
    try Self.run(
      f,
      fill + """
        table.move(state.items, 1, 3, 8)
        table.move(state.items, 5, 6, 1, state.groups[1])
        table.insert(state.items, { name = "end", n = 99, sub = { v = 99 } })
        table.remove(state.groups[2])
        state.seen = state.items[8].name .. state.items[10].name .. state.groups[1][1].name
          .. state.items[11].name .. tostring(state.groups[2][1])
        """)
    try Self.expectSeen(f, "aceendnil")
    try Self.fails(
      f,
      fill + """
        state.items[8].sub.v = -1 state.groups[1][1].sub.v = -2 state.items[11].sub.v = -3
        error('x')
        """)
  }

  /// A failing adoption inside pcall, through a view, then reads and writes.
  @Test func failingAdoptionUnderPcall() throws {
    let f = try Self.feature()
    let fill = "for _ = 1, 3 do local _ = state.rec.a.x, state.rec.b.x end "
    try Self.run(f, fill)
    try Self.run(
      f,
      fill + """
        local ok1 = pcall(function() state.rec.a = setmetatable({}, {}) end)
        local ok2 = pcall(function() state.rec.b = { y = { z = setmetatable({}, {}) } } end)
        local ok3 = pcall(function() rawset(state.rec, 'a', { q = setmetatable({}, {}) }) end)
        state.seen = tostring(ok1) .. tostring(ok2) .. tostring(ok3) .. state.rec.a.x .. state.rec.b.x
        """)
    try Self.expectSeen(f, "falsefalsefalse12")
    try Self.fails(f, fill + "state.rec.a.x = 9 state.rec.b.x = 9 error('x')")
  }

  /// Aliasing: one table stored at two places, written through one, read through the other.
  @Test func aliasedTables() throws {
    let f = try Self.feature()
    try Self.run(f, "state.rec.c = state.rec.a")
    let fill = "for _ = 1, 3 do local _ = state.rec.a.x, state.rec.c.x end "
    try Self.run(f, fill)
    try Self.run(f, fill + "state.rec.a.x = 5 state.seen = state.rec.c.x")
    try Self.expectSeen(f, 5)
    try Self.run(f, fill + "state.rec.a = { x = 6 } state.seen = state.rec.c.x .. state.rec.a.x")
    try Self.expectSeen(f, "56")
  }

  /// Coroutines reading (filling views) and writing across yields, in one action.
  @Test func coroutinesAcrossYields() throws {
    let f = try Self.feature()
    try Self.run(
      f,
      """
      local co = coroutine.wrap(function()
        for _ = 1, 3 do local _ = state.rec.a.x end
        coroutine.yield()
        state.rec.a = { x = 7 }
        coroutine.yield()
        state.seen = state.rec.a.x
      end)
      co() local _ = state.rec.a.x, state.rec.a.x co() local _ = state.rec.a.x co()
      """)
    try Self.expectSeen(f, 7)
  }

  /// Keys of every type: floats with integer values, booleans, negatives.
  @Test func keysOfEveryType() throws {
    let f = try Self.feature()
    try Self.run(
      f, "state.rec[1] = { x = 1 } state.rec[true] = { x = 2 } state.rec[-1] = { x = 3 }")
    let fill =
      "for _ = 1, 3 do local _ = state.rec[1.0].x, state.rec[true].x, state.rec[-1.0].x, state.rec[2^53] end "
    try Self.run(f, fill)
    try Self.run(
      f,
      fill + """
        state.rec[1.0] = { x = 11 } rawset(state.rec, true, { x = 12 }) state.rec[-1] = { x = 13 }
        state.seen = state.rec[1].x .. state.rec[true].x .. state.rec[-1.0].x
        """)
    try Self.expectSeen(f, "111213")
  }

  /// The 4096 view limit: more than 4096 views given, a rollback, and reads after.
  @Test func manyViewsThenRollback() throws {
    let f = try Self.feature()
    try Self.run(f, "for i = 1, 4200 do state.big[i].t = { i } end")
    let fill = "for _ = 1, 2 do for i = 1, 4200 do local _ = state.big[i].t[1] end end "
    try Self.run(f, fill)
    try Self.fails(f, fill + "for i = 1, 4200 do state.big[i].t[1] = -i end error('x')")
    try Self.run(
      f,
      fill
        + "table.remove(state.big[7].t) state.big[8].t = { 'z' } state.seen = tostring(state.big[7].t[1]) .. state.big[8].t[1]"
    )
    try Self.expectSeen(f, "nilz")
  }
}
