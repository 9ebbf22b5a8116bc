import ComposableLua
import Foundation
import LuaKit
import SeededRandom
import Testing

/// An action cannot leave the state out of the shape a saved file holds: more than 200 levels
/// of tables, or a table inside itself. Either fails the action, naming the place, and the
/// state is rolled back; every state an action commits can be snapshotted and saved.
@Suite struct StateShapeTests {
  static func feature(_ reduce: String) throws -> LuaFeature {
    try LuaFeature(
      source: """
        local M = {}
        function M.initial_state()
          return { list = { { x = 1 }, { x = 2 } }, a = { b = {} }, other = { inner = {} } }
        end
        function M.reduce(state, action)
        \(reduce)
        end
        return M
        """, file: "shape.lua")
  }

  static func send(_ feature: LuaFeature, _ action: LuaValue) -> LuaFeatureError? {
    do throws(LuaFeatureError) {
      try feature.step(action)
      return nil
    } catch { return error }
  }

  @Test func aChainOfTablesDeeperThan200LevelsFailsTheAction() throws {
    let feature = try Self.feature(
      """
        local cur = state
        for i = 1, action.n do cur.x = {} cur = cur.x end
      """)
    let before = try feature.state()
    let error = Self.send(feature, ["type": "deepen", "n": 300])
    #expect(
      error?.description == """
        the reducer failed on { n = 300, type = "deepen" }, and the state was rolled back: \
        the state would be nested more than 200 levels deep, at \
        state.x.x.x.x.x.x…(192 more)….x.x. A state is data a file can hold, at most 200 levels \
        deep. To fix, keep it flatter: hold ids and look them up
        """)
    #expect(try feature.state() == before)
    // 199 levels under the root is the most: the root and 199 tables.
    #expect(Self.send(feature, ["type": "deepen", "n": 199]) == nil)
    #expect(try LuaDataFile.text(of: feature.state()).isEmpty == false)
  }

  @Test func aStateDeepenedOneLevelAnActionStopsAtTheLimit() throws {
    let feature = try Self.feature(
      """
        local cur = state
        while cur.x do cur = cur.x end
        cur.x = {}
      """)
    var failures = 0
    for _ in 1...205 where Self.send(feature, "deepen") != nil { failures += 1 }
    #expect(failures == 6, "199 succeed, then each fails")
    var depth = 1
    var cursor = try feature.state()
    while case .table = cursor["x"] {
      cursor = cursor["x"]
      depth += 1
    }
    #expect(depth == 200)
  }

  @Test(arguments: [
    ("state.me = state", "state.me is state"),
    ("state.a.b.back = state.a", "state.a.b.back is state.a"),
    ("local t = {} t.me = t state.t = t", "state.t.me is state.t"),
    ("state.a.b.up = { state.a }", "state.a.b.up[1] is state.a"),
    ("local l = state.list table.insert(l[1], l)", "state.list[1][1] is state.list"),
    (
      "state.list[2] = state.list[2] state.list[2].self = state.list[2]",
      "state.list[2].self is state.list[2]"
    ),
  ])
  func aTableInsideItselfFailsTheAction(code: String, place: String) throws {
    // The first action shares a table, so the whole state is walked: its height is known, and
    // the cycle must be seen without the walk's help.
    let feature = try Self.feature(
      "if action.type == \"share\" then state.shared = state.other return end " + code)
    #expect(Self.send(feature, "share") == nil)
    let before = try feature.state()
    let error = Self.send(feature, "cycle")
    #expect(
      error?.description.hasSuffix(
        "the state would hold a table inside itself: \(place), a table it is inside. A state "
          + "is data a file can hold, which has no cycles. To fix, hold an id and look it up, "
          + "or a copy") == true, "\(String(describing: error))")
    #expect(try feature.state() == before)
  }

  /// A table holding none, stored at a root that held none, makes the state two levels deep:
  /// the kept bound follows, so a later new table of 199 levels under it is refused.
  @Test func aFlatTableAtARootThatHeldNoneRaisesTheBound() throws {
    let feature = try Self.feature(
      """
        if action.type == "scratch" then state.tmp = {} state.tmp.q = {} state.tmp = nil
        elseif action.type == "clear" then state.list, state.a, state.other = nil, nil, nil
        elseif action.type == "open" then state.x = {}
        else
          local t = {} for _ = 1, 198 do t = { t } end
          state.x.y = t
        end
      """)
    #expect(Self.send(feature, "clear") == nil)
    #expect(Self.send(feature, "scratch") == nil)  // walked: the bound is 1, exactly
    #expect(Self.send(feature, "open") == nil)
    let error = Self.send(feature, "nest")
    #expect(
      error?.description.contains(
        "the state would be nested more than 200 levels deep, at state.x.y[1][1]") == true,
      "\(String(describing: error))")
  }

  /// A table shared at a second, deeper place is too deep there: found by its height, from
  /// the first walk over it (the walk visits each table once).
  @Test func aSharedTableTooDeepAtItsSecondPlaceIsRefused() throws {
    let feature = try Self.feature(
      """
        if action.type == "chain" then
          local t = {} for _ = 1, 150 do t = { t } end
          state.chain = t
        else
          local holder = {}
          local cur = holder
          for _ = 1, 60 do cur.down = {} cur = cur.down end
          cur.shared = state.chain
          state.holder = holder
        end
      """)
    #expect(Self.send(feature, "chain") == nil)
    let error = Self.send(feature, "share")
    #expect(
      error?.description.contains(
        "the state would be nested more than 200 levels deep, at state.holder.down.down") == true,
      "\(String(describing: error))")
    #expect(error?.description.contains("[1][1]. A state is data") == true)
  }

  @Test func sharedTablesAndMovesStayAllowed() throws {
    let feature = try Self.feature(
      """
        if action.type == "share" then
          state.selected = state.list[1]
          state.a.b.also = state.list
        elseif action.type == "sort" then
          table.sort(state.list, function(p, q) return p.x > q.x end)
          table.insert(state.list, 1, { x = 0 })
          table.remove(state.list, 2)
        else
          state.a, state.moved = nil, state.a
        end
      """)
    for action in ["share", "sort", "move"] {
      let error = Self.send(feature, .string(LuaString(action)))
      #expect(error == nil, "\(action): \(String(describing: error))")
    }
    let state = try feature.state()
    #expect(state.selected == ["x": 1])
    #expect(state.list == [["x": 0], ["x": 1]])
    #expect(state.moved.b.also.tableValue?.identity == state.list.tableValue?.identity)
  }

  /// Random actions that move tables between parents (their own ancestors included), keep
  /// tables across actions, and build chains: each commits exactly when a walk of the state in
  /// Lua, at the end of the reducer, finds it in shape; and what commits can be saved.
  @Test func anActionCommitsExactlyWhenTheStateIsInShape() throws {
    let feature = try LuaFeature(source: Self.randomMoves, file: "moves.lua")
    var random = SplitMix64(seed: 27)
    var refusals = (deep: 0, cycle: 0)
    for step in 0..<400 {
      var ops: [LuaValue] = []
      for _ in 0...random.below(3) {
        let op: [Int] = [
          1 + random.below(8), 1 + random.below(1_000), 1 + random.below(1_000),
          1 + random.below(6),
        ]
        ops.append(.table(LuaTable(array: op.map { LuaValue.integer($0) })))
      }
      let before = try feature.state()
      let error = Self.send(feature, ["type": "ops", "ops": .table(LuaTable(array: ops))])
      let expected = try feature.evaluate("expected_shape()").first ?? .nil
      if let error {
        let text = error.description
        #expect(
          text.contains("the state would") && expected != "ok",
          "step \(step): \(text), Lua says \(expected)")
        if text.contains("levels deep") { refusals.deep += 1 } else { refusals.cycle += 1 }
        #expect(try feature.state() == before, "step \(step): rolled back")
      } else {
        #expect(expected == "ok", "step \(step): committed, Lua says \(expected)")
        _ = try LuaDataFile.text(of: feature.state())
      }
    }
    #expect(refusals.deep > 4 && refusals.cycle > 20, "\(refusals)")
  }

  static let randomMoves = """
    local kept = {}
    local last = "ok"
    function expected_shape() return last end

    local function shape(root)
      local onpath, best = {}, {}
      local function visit(t, depth)
        if depth > 200 then return "deep" end
        if onpath[t] then return "cycle" end
        if best[t] and best[t] >= depth then return "ok" end
        onpath[t] = true
        for _, v in pairs(t) do
          if type(v) == "table" then
            local r = visit(v, depth + 1)
            if r ~= "ok" then return r end
          end
        end
        onpath[t], best[t] = nil, depth
        return "ok"
      end
      return visit(root, 1)
    end

    -- In the order of their keys, so that a seed gives the same program in every run (the
    -- order of `pairs` changes with the VM's string hashing).
    local function ordered_values(t)
      local keys = {}
      for k in pairs(t) do keys[#keys + 1] = k end
      table.sort(keys, function(p, q)
        if type(p) ~= type(q) then return type(p) < type(q) end
        return p < q
      end)
      local values = {}
      for i, k in ipairs(keys) do values[i] = t[k] end
      return values
    end

    local function nodes(root)
      local list, seen, i = { root }, { [root] = true }, 1
      while list[i] and #list < 400 do
        for _, v in ipairs(ordered_values(list[i])) do
          if type(v) == "table" and not seen[v] then seen[v] = true list[#list + 1] = v end
        end
        i = i + 1
      end
      return list
    end

    local keys = { "a", "x", 1, 2, 3 }
    local M = {}
    function M.initial_state()
      return { a = { b = { c = {} } }, list = { { x = 1 }, { x = 2 } } }
    end
    function M.reduce(state, action)
      for _, op in ipairs(action.ops) do
        local all = nodes(state)
        local from, to = all[op[2] % #all + 1], all[op[3] % #all + 1]
        local key = keys[op[4] % #keys + 1]
        local kind = op[1]
        if kind == 1 then to[key] = from
        elseif kind == 2 then to[key] = { x = op[4] }
        elseif kind == 3 then
          local cur = to
          for _ = 1, op[4] * 20 do cur.x = {} cur = cur.x end
        elseif kind == 4 then to[key] = nil
        elseif kind == 5 then kept[#kept % 8 + 1] = from
        elseif kind == 6 and #kept > 0 then to[key] = { kept[op[4] % #kept + 1] }
        elseif kind == 7 then to[1], to[2] = to[2], to[1]
        elseif kind == 8 then
          local new = {}
          local cur = new
          for _ = 1, op[4] * 12 do cur.x = {} cur = cur.x end
          to[key] = new
        end
      end
      last = shape(state)
    end
    return M
    """
}

extension StateShapeTests {
  static let sharedSource = """
    return {
      initial_state = function()
        local shared = { v = 1 }
        return { delta = { s = shared }, beta = { s = shared }, alpha = { s = shared },
                 gamma = { s = shared }, [2] = { s = shared }, [true] = { s = shared } }
      end,
      reduce = function(state, action)
        if action.type == "loop" then state.gamma.s.back = state.beta end
        if action.type == "deep" then
          local cur = state.delta.s
          for i = 1, 250 do cur.x = {} cur = cur.x end
        end
      end,
    }
    """

  /// A table at several places, closing a cycle or growing too deep: the place named is the
  /// first in key order, in every VM. In the order of a hash part (each VM's string-hash seed),
  /// it was one place or another from one run to the next, and `composable replay` of a session
  /// on unchanged code said its action's error was another now (4 runs in 5).
  @Test func theRefusedPlaceIsTheSameInEveryRun() throws {
    var loops: Set<String> = [], deeps: Set<String> = []
    for _ in 0..<12 {
      let feature = try LuaFeature(source: Self.sharedSource, file: "shared.lua")
      loops.insert(Self.send(feature, ["type": "loop"])?.description ?? "no error")
      deeps.insert(Self.send(feature, ["type": "deep"])?.description ?? "no error")
    }
    #expect(loops.count == 1 && deeps.count == 1, "\(loops) \(deeps)")
    #expect(
      loops.first?.contains(
        "the state would hold a table inside itself: state[2].s.back.s is state[2].s, a table it "
          + "is inside") == true, "\(loops)")
    #expect(
      deeps.first?.contains("the state would be nested more than 200 levels deep, at state[2].s.x.x")
        == true, "\(deeps)")
  }

  /// `chain_of_tables(seed)`: a random number function (`random(n)`, 1 to n), a length of 186
  /// to 215 and that many tables, each holding the next under one of four keys.
  static let chainOfTables = """
    local function chain_of_tables(seed)
      local s = seed
      local function random(n) s = (s * 1103515245 + 12345) % 2147483648 return s // 65536 % n + 1 end
      local length = 185 + random(30)
      local nodes = {}
      for i = 1, length do nodes[i] = { v = i } end
      for i = 1, length - 1 do nodes[i]["next" .. random(4)] = nodes[i + 1] end
      return random, length, nodes
    end
    """

  /// A stored table is refused at the store, where a `pcall` sees it, exactly when its longest
  /// path of tables passes 200 levels, however its fields are ordered. A table held both at a
  /// shallow and at a deep place was adopted where its hash order met it first: by the short
  /// path, the store went through and the action failed at its end (no `pcall` sees that), by
  /// the long one it was refused at the store; `composable replay` of such a session on
  /// unchanged code differed 2 runs in 8 (a helper's finding). Random chains of 186 to 215
  /// tables with shortcuts and branches, in several VMs (each its own string-hash seed).
  @Test func aStoredTableIsRefusedByItsLongestPathWhateverTheOrder() throws {
    let source = """
      \(Self.chainOfTables)
      local function height(t, known)
        if known[t] then return known[t] end
        local most = 0
        for _, v in pairs(t) do
          if type(v) == "table" then most = math.max(most, height(v, known)) end
        end
        known[t] = most + 1
        return most + 1
      end
      return {
        initial_state = function() return { stored = 0, refused = 0 } end,
        reduce = function(state, action)
          local random, length, nodes = chain_of_tables(action.seed)
          for _ = 1, random(8) do
            local from, to = random(length), random(length)
            if from < to then nodes[from]["short" .. random(40)] = nodes[to] end
          end
          for _ = 1, random(4) do nodes[random(length)]["leaf" .. random(9)] = { w = 1 } end
          local longest = height(nodes[1], {})
          local ok, err = pcall(function() state.x = nodes[1] end)
          if ok ~= (longest < 200) then
            error(("longest path %d: the store %s (%s)"):format(
              longest, ok and "went through" or "was refused", tostring(err)), 0)
          end
          if not ok and not err:find("nested more than 200 levels deep", 1, true) then
            error("another refusal: " .. err, 0)
          end
          state.x = nil
          if ok then state.stored = state.stored + 1 else state.refused = state.refused + 1 end
        end,
      }
      """
    for vm in 0..<4 {
      let feature = try LuaFeature(source: source, file: "dag.lua")
      for seed in 0..<60 {
        let action: LuaValue = ["type": "store", "seed": .integer(vm * 60 + seed)]
        if let error = Self.send(feature, action) {
          Issue.record("seed \(vm * 60 + seed): \(error)")
        }
      }
      // Both sides of the limit were tried.
      let state = try feature.state()
      #expect((state.stored.intValue ?? 0) > 10 && (state.refused.intValue ?? 0) > 10, "\(state)")
    }
  }

  /// A stored table with a table inside itself and a long path: the store's outcome is the same
  /// in every VM. A cycle has no longest path to count, and how deep the adoption went depended
  /// on where the hash order met the cycle: a `pcall` around the store saw a refusal in about
  /// half the runs, and in the others the action went on and committed (a helper's finding).
  /// Such a store is made in key order, whose outcome stands. Random chains of 186 to 215 with
  /// edges back and forward, stored under two keys, in 4 VMs.
  @Test func aStoredTableHoldingItselfIsStoredOrRefusedAlikeInEveryVM() throws {
    let source = """
      \(Self.chainOfTables)
      return {
        initial_state = function() return { outcomes = {} } end,
        reduce = function(state, action)
          local random, length, nodes = chain_of_tables(action.seed)
          for _ = 1, random(6) do
            local from, to = random(length), random(length)
            nodes[from][(from > to and "back" or "short") .. random(40)] = nodes[to]
          end
          local ok, err = pcall(function()
            state.x = { ["k" .. random(9)] = nodes[random(length)], ["k" .. random(9)] = nodes[1] }
          end)
          state.x = nil
          state.outcomes[#state.outcomes + 1] = ok and "stored" or err
        end,
      }
      """
    var outcomes: Set<LuaValue> = []
    for _ in 0..<4 {
      let feature = try LuaFeature(source: source, file: "cycles.lua")
      for seed in 0..<60 {
        if let error = Self.send(feature, ["type": "store", "seed": .integer(seed)]) {
          Issue.record("seed \(seed): \(error)")
        }
      }
      outcomes.insert(try feature.state().outcomes)
    }
    #expect(outcomes.count == 1)
    let first = outcomes.first.map { "\($0)" } ?? ""
    #expect(first.contains("stored") && first.contains("more than 200 levels deep"), "\(first)")
  }
}
