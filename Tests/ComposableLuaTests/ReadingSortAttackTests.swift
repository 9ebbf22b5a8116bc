import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// Attacks on the sort whose order function only reads (ReadingFunctions.c, `lk_sort_real_array`),
/// by a tester sent to break it: each action runs Lua code against the state (`K` is a module
/// local kept across actions). A real element handed to code that keeps it would keep a later
/// write through it after its action failed; a proxy's write is rolled back.
@Suite struct ReadingSortAttackTests: AttackSuite {
  static let source = AttackFeature.source(
    initialState: """
      local recs = {}
      for i = 1, 12 do recs[i] = { n = (i * 7) % 12, s = string.char(97 + i % 5), sub = { v = i } } end
      return { recs = recs }
      """)

  static func feature(_ limits: LuaLimits = AttackFeature.unlimited) throws -> LuaFeature {
    try AttackFeature.make(Self.source, limits: limits)
  }

  /// Each way a feature can put its own Lua code behind an operation an order function that
  /// only reads can make: the code keeps what it is given in K.kept. The order function must
  /// get proxies then, so a write through what was kept rolls back.
  static let hooks: [(setup: String, order: String)] = [
    // Same keys, a value changed (the key set alone would not tell).
    (
      "getmetatable('').__add = function(x, y) K.kept = y return 0 end",
      "function(a, b) return ('1' + a) == 0 and a.n < b.n end"
    ),
    // One key gone, another added: the same count of fields.
    (
      "local mt = getmetatable('') mt.__mod = nil mt.__concat = function(x, y) K.kept = y return '' end",
      "function(a, b) return ('x' .. a) == '' and a.n < b.n end"
    ),
    // __index a function.
    (
      "getmetatable('').__index = function(s, k) K.kept = k end",
      "function(a, b) return ('x')[a] == nil and a.n < b.n end"
    ),
    // __index a table whose own __index is a function.
    (
      "getmetatable('').__index = setmetatable({}, { __index = function(t, k) K.kept = k end })",
      "function(a, b) return ('x')[a] == nil and a.n < b.n end"
    ),
    // The string table given a metatable.
    (
      "setmetatable(string, { __index = function(t, k) K.kept = k end })",
      "function(a, b) return ('x')[a] == nil and a.n < b.n end"
    ),
    // An ordering metamethod on strings, a numeric key beside it.
    (
      "local mt = getmetatable('') mt[1] = true mt.__le = function(x, y) K.kept = x return true end",
      "function(a, b) return a <= 'z' and a.n < b.n end"
    ),
    // __eq cannot be reached with a string; __lt with the element second.
    (
      "getmetatable('').__lt = function(x, y) K.kept = y return false end",
      "function(a, b) return ('m' < a) == false and a.n < b.n end"
    ),
    // An upvalue that is a table with a metamethod (no string changed).
    (
      "local spy = setmetatable({}, { __index = function(_, k) K.kept = k end }) K.order = function(a, b) return spy[a] == nil and a.n < b.n end",
      "K.order"
    ),
    // An upvalue that is a table read through its field.
    (
      "local box = { spy = setmetatable({}, { __lt = function(x, y) K.kept = x return false end }) } K.order = function(a, b) return (a.sub < box.spy) == false and a.n < b.n end",
      "K.order"
    ),
    // _ENV a table with a metamethod: globals read through it.
    (
      "do local K = K local _ENV = setmetatable({}, { __index = function(_, k) K.kept = k end }) K.order = function(a, b) local _ = _ENV[a] return a.n < b.n end end",
      "K.order"
    ),
    // Through load (text): a vararg chunk.
    (
      "getmetatable('').__index = function(s, k) K.kept = k end K.order = load('local a, b = ... return (\"x\")[a] == nil and a.n < b.n')",
      "K.order"
    ),
  ]

  @Test(arguments: 0..<Self.hooks.count)
  func aHookGetsProxiesOnly(_ index: Int) throws {
    let (setup, order) = Self.hooks[index]
    for inCoroutine in [false, true] {
      let f = try Self.feature()
      let sort = "pcall(table.sort, state.recs, \(order))"
      try Self.run(
        f, setup + "\n" + (inCoroutine ? "coroutine.wrap(function() \(sort) end)()" : sort))
      try Self.run(f, "state.kept = type(K.kept)")
      #expect(try f.state()["kept"] == "table", "\(setup) (coroutine: \(inCoroutine))")
      try Self.fails(f, "K.kept.n = 99 K.kept.planted = true error('x')")
      try Self.fails(f, "K.kept.sub.v = 99 error('x')")
    }
  }

  /// A sort that runs out of memory (a catchable error) in the order function or writing back:
  /// the list stays a permutation of what it held, and the action's writes roll back.
  @Test func outOfMemoryMidSortKeepsAPermutationAndRollsBack() throws {
    let setup = """
      local list = {}
      for i = 1, 300 do list[i] = { id = i, s = string.rep(string.char(97 + (i * 7919) % 26), 200 + i % 13) } end
      state.list = list
      """
    let sort = """
      local ok, err = pcall(table.sort, state.list, function(a, b)
        local x = a.s
        for i = 1, 9 do x = x .. x end
        return x < b.s
      end)
      local seen, count = {}, 0
      for i = 1, #state.list do
        local id = state.list[i].id
        if seen[id] then error("duplicate " .. id .. " at " .. i) end
        seen[id] = true
        count = count + 1
      end
      if count ~= 300 then error("count " .. count) end
      state.result = ok and "ok" or tostring(err)
      """
    // The smallest cap under which the setup fits.
    var low = 64 * 1024, high = 64 * 1024 * 1024
    while high - low > 4096 {
      let mid = (low + high) / 2
      if let f = try? Self.feature(LuaLimits(memory: mid, instructions: nil, seconds: nil)),
        (try? Self.run(f, setup)) != nil
      {
        high = mid
      } else {
        low = mid
      }
    }
    var outcomes: [String: Int] = [:]
    for extra in stride(from: 0, through: 800 * 1024, by: 12 * 1024) {
      guard
        let f = try? Self.feature(LuaLimits(memory: high + extra, instructions: nil, seconds: nil)),
        (try? Self.run(f, setup)) != nil
      else { continue }
      let before = try f.state()
      do {
        try Self.run(f, sort + "\nerror('asked to roll back', 0)")
      } catch {
        let message = "\(error)"
        #expect(message.contains("asked to roll back") || message.contains("memory"), "\(message)")
      }
      #expect(try f.state() == before, "cap \(high + extra): the rollback")
      do {
        try Self.run(f, sort)
        let result = try f.state()["result"]
        outcomes["\(result)", default: 0] += 1
      } catch {
        outcomes["failed: \("\(error)".split(separator: "rolled back:").last ?? "")", default: 0] +=
          1
        #expect("\(error)".contains("memory"), "cap \(high + extra): \(error)")
      }
    }
    print("out of memory mid-sort: \(outcomes)")
  }

  /// Differential: random lists of records and random order functions (valid, invalid, raising,
  /// NaN, mixed types, aliases) sorted under lua5.4, by the reading sort, and by the proxy sort
  /// (the same order wrapped in a call): the same transcripts, and a failed action rolls back.
  static let harness = """
    local function harness(S, seed, nops, force)
      local r = seed
      local function rand(n)
        r = (r * 1103515245 + 12345) % 2147483648
        return (r >> 8) % n + 1
      end
      local U, W = 4, "c"
      local orders = {
        function(a, b) return a.n < b.n end,
        function(a, b) return a.n <= b.n end,
        function(a, b) return a.f < b.f end,
        function(a, b) return a.v < b.v end,
        function(a, b) if a.k == 3 and b.k == 5 then return a.zz.q end return a.n < b.n end,
        function(a, b) return a == b or a.n > b.n end,
        function(a, b) return #a.s < #b.s end,
        function(a, b) return (a.s .. a.n) < (b.s .. b.n) end,
        function(a, b) return a.sub.v < b.sub.v end,
        function(a, b) return a.sub < b.sub end,
        function(a, b) return a.n // (b.k - b.k) < 1 end,
        function(...) local a, b = ... return a.n > b.n end,
        function(a, b) for i = 1, 3 do if a.n + i == b.n then return true end end return false end,
        function(a, b) return -a.f < -b.f end,
        function(a, b) return ("x")[a] == nil and a.s < b.s end,
        function(a, b) return a.n + "1" < b.n + "0" end,
        function(a, b) return (a.f | 0) < (b.f | 0) end,
        function(a, b) return true end,
        function(a, b) return a.id % 7 < b.id % 7 end,
        function(a, b) if (a.n > U) ~= (b.n > U) then return a.n > U end return a.s .. W < b.s .. W end,
        function(a, b) return a.v == b.v and a.id < b.id or a.k < b.k end,
        function(a, b) return a.w.x < b.w.x end,
        function(a, b) return a.s < b end,
        function(a, b) return not (a.n >= b.n) end,
        function(a, b) return #a < #b or a.id < b.id end,
      }
      local function mixed()
        local k = rand(7)
        if k == 1 then return rand(10)
        elseif k == 2 then return rand(10) + 0.5
        elseif k == 3 then return string.char(96 + rand(5))
        elseif k == 4 then return rand(2) == 1
        elseif k == 5 then return nil
        elseif k == 6 then return { v = rand(3) }
        else return rand(3) end
      end
      local function float()
        local k = rand(6)
        if k == 1 then return 0/0 elseif k == 2 then return rand(5) + 0.25 else return rand(5) + 0.0 end
      end
      local nextid = 1000
      local function record()
        nextid = nextid + 1
        return { id = nextid, n = rand(10), f = float(), s = string.char(96 + rand(5)), v = mixed(),
          k = rand(8), sub = { v = rand(9) }, w = rand(4) > 1 and { x = rand(6) } or nil }
      end
      local out = {}
      for op = 1, nops do
        local list = S.list
        local kind = rand(6)
        if kind == 1 and #list > 0 then
          local e = list[rand(#list)]
          e.n, e.s, e.v, e.f, e.k = rand(10), string.char(96 + rand(5)), mixed(), float(), rand(8)
        elseif kind == 2 and #list < 60 then
          table.insert(list, rand(#list + 1), record())
        elseif kind == 3 and #list > 2 then
          table.remove(list, rand(#list))
        elseif kind == 4 and #list > 2 then
          list[rand(#list)] = list[rand(#list)]
        end
        local o = rand(#orders)
        local order = orders[o]
        if force then order = function(a, b) return orders[o](a, b) end end
        local ok, err = pcall(table.sort, list, order)
        local ids = {}
        for i = 1, #list do ids[i] = list[i].id end
        err = ok and "" or tostring(err):gsub("^[^:]*:%d+: ", "")
        out[#out + 1] = o .. " " .. tostring(ok) .. " " .. err .. " " .. table.concat(ids, ",")
      end
      return table.concat(out, "\\n")
    end
    local function init(seed)
      local list = {}
      for id = 1, 20 + seed % 30 do
        list[id] = { id = id, n = id * 7 % 10, f = id % 9 == 0 and 0/0 or id % 4 + 0.0,
          s = string.char(97 + id % 5), v = id % 3 == 0 and "s" or id % 5, k = id % 8 + 1,
          sub = { v = id * 5 % 9 }, w = { x = id % 6 } }
      end
      return { list = list }
    end

    """

  static let fuzzSource =
    harness + """
      return {
        initial_state = function() return init(0) end,
        reduce = function(state, action)
          if action.type == "reset" then
            state.list = init(action.seed).list
            state.out = nil
            return
          end
          state.out = harness(state, action.seed, action.nops, action.force)
          if action.fail then error("rolled back") end
        end,
      }
      """

  static let plainDriver =
    harness + """
      for seed = tonumber(arg[1]), tonumber(arg[2]) do
        io.write("==", seed, "\\n", harness(init(seed), seed, tonumber(arg[3])), "\\n")
      end
      """

  @Test func randomSortsMatchLua54BothWays() throws {
    let seeds = Int(ProcessInfo.processInfo.environment["READING_SORT_SEEDS"] ?? "") ?? 60
    let nops = 40
    let plain = try PlainLua.transcripts(of: Self.plainDriver, seeds: 1, seeds, nops: nops)
    #expect(plain.count == seeds)
    var mismatches = 0
    for seed in 1...seeds {
      let feature = try LuaFeature(source: LuaString(Self.fuzzSource), file: "fuzz.lua")
      for force in [false, true] {
        _ = try feature.step(["type": "reset", "seed": .integer(seed)])
        let before = try feature.state()
        #expect(throws: LuaFeatureError.self) {
          try feature.step([
            "type": "run", "seed": .integer(seed), "nops": .integer(nops), "fail": true,
            "force": .boolean(force),
          ])
        }
        #expect(
          "\(try feature.state())" == "\(before)", "seed \(seed) force \(force): the rollback")
        _ = try feature.step([
          "type": "run", "seed": .integer(seed), "nops": .integer(nops), "force": .boolean(force),
        ])
        let out = try feature.state()["out"]
        let expected = plain[seed] ?? ""
        if out != .string(LuaString(expected)) {
          mismatches += 1
          if mismatches <= 3 {
            let got = "\(out)"
            Issue.record("seed \(seed) force \(force):\nlua5.4:\n\(expected)\n\ngot:\n\(got)")
          }
        }
      }
    }
    #expect(mismatches == 0)
  }
  /// Small cases run on a state (the reading sort) and on plain tables under lua5.4: scalar
  /// arrays read flat before the sort, holes, NaN, ties, cycles, the array holding itself.
  static let cases: [String] = [
    "local n = S.nums local first = n[1] local ok, e = pcall(table.sort, n, function(a, b) return a > b end) return first .. ' ' .. tostring(ok) .. ' ' .. table.concat(n, ',')",
    "local n = S.mixed local ok, e = pcall(table.sort, n, function(a, b) return a < b end) return tostring(ok) .. ' ' .. tostring(e):gsub('^[^:]*:%d+: ', '') .. ' ' .. table.concat(n, ',')",
    "local n = S.nans local ok, e = pcall(table.sort, n, function(a, b) return a < b end) local t = {} for i = 1, #n do t[i] = tostring(n[i]) end return tostring(ok) .. ' ' .. table.concat(t, ',')",
    "local n = S.ties local ok, e = pcall(table.sort, n, function(a, b) return a.n <= b.n end) local t = {} for i = 1, #n do t[i] = n[i].id end return tostring(ok) .. ' ' .. tostring(e):gsub('^[^:]*:%d+: ', '') .. ' ' .. table.concat(t, ',')",
    "S.recs[3] = nil local ok, e = pcall(table.sort, S.recs, function(a, b) return a.n < b.n end) local t = {} for i = 1, 12 do t[i] = S.recs[i] and S.recs[i].n or '-' end return tostring(ok) .. ' ' .. tostring(e):gsub('^[^:]*:%d+: ', '') .. ' ' .. table.concat(t, ',')",
    "for i = 1, #S.recs do S.recs[i].twin = S.recs[i % 12 + 1].sub end local ok, e = pcall(table.sort, S.recs, function(a, b) return a.twin.v < b.twin.v end) local t = {} for i = 1, #S.recs do t[i] = S.recs[i].n end return tostring(ok) .. ' ' .. table.concat(t, ',')",
    "local l = S.recs l[#l + 1] = l[4] l[#l + 1] = l[7] local ok, e = pcall(table.sort, l, function(a, b) return a == b or a.n < b.n end) local t = {} for i = 1, #l do t[i] = l[i].n end return tostring(ok) .. ' ' .. tostring(e):gsub('^[^:]*:%d+: ', '') .. ' ' .. table.concat(t, ',')",
    "local l = S.recs local ok, e = pcall(table.sort, l, function(a, b) return a.s .. b.n < b.s .. a.n end) local t = {} for i = 1, #l do t[i] = l[i].n end return tostring(ok) .. ' ' .. table.concat(t, ',')",
    "local l = S.strs local ok, e = pcall(table.sort, l, function(a, b) return #a < #b or #a == #b and a > b end) return tostring(ok) .. ' ' .. table.concat(l, ',')",
  ]

  static let casesInit = """
    local function init()
      local recs = {}
      for i = 1, 12 do recs[i] = { n = (i * 7) % 12, s = string.char(97 + i % 5), sub = { v = i } } end
      local ties = {}
      for i = 1, 70 do ties[i] = { id = i, n = i % 3 } end
      return { recs = recs, nums = { 5, 3, 9, 1, 7, 2 }, mixed = { 3, 1, "x", 2 },
        nans = { 3, 0/0, 1, 0/0, 2, 5 }, ties = ties, strs = { "bb", "a", "ccc", "ab", "b", "" } }
    end

    """

  @Test(arguments: 0..<Self.cases.count)
  func smallCasesMatchLua54(_ index: Int) throws {
    let body = "local function body(S) \(Self.cases[index]) end\n"
    let feature = try LuaFeature(
      source: LuaString(
        Self.casesInit + body + """
          return { initial_state = init, reduce = function(state, action)
            state.out = body(state)
            if action.fail then error("rolled back") end
          end }
          """), file: "cases.lua")
    let before = try feature.state()
    #expect(throws: LuaFeatureError.self) { try feature.step(["type": "go", "fail": true]) }
    #expect("\(try feature.state())" == "\(before)", "the rollback")
    _ = try feature.step(["type": "go"])
    let plain = try PlainLua.output(of: Self.casesInit + body + "io.write(body(init()))")
    #expect(try feature.state()["out"] == .string(LuaString(plain)), "case \(index)")
  }

  /// The budget spent inside the order function of a sort in a coroutine, under pcall: the
  /// action stops and rolls back.
  @Test func aStopInACoroutineSortRollsBack() throws {
    let f = try Self.feature(LuaLimits(memory: nil, instructions: 300_000, seconds: nil))
    try Self.run(
      f, "local l = {} for i = 1, 3000 do l[i] = { n = (i * 7919) % 3000 } end state.big = l")
    try Self.fails(
      f,
      """
      state.touched = true
      for i = 1, 100 do
        pcall(coroutine.wrap(function()
          pcall(table.sort, state.big, i % 2 == 0 and function(a, b) return a.n < b.n end
            or function(a, b) return a.n > b.n end)
        end))
      end
      """)
  }
}
