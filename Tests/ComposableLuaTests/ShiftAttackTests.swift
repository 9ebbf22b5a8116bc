import Composable
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// Attacks on shifted arrays (`table.insert`/`table.remove` on a state's array shifting its real
/// table, one journal entry a run of slots): random programs run against the state and against
/// plain tables under `lua5.4`, rolled back, cut by budgets and memory caps, and read back
/// through the journal's readers.
@Suite struct ShiftAttackTests {
  /// The harness, the same text in the feature and under `lua5.4`: `harness(S, seed, nops, env)`
  /// runs `nops` random operations on S.A, S.B and S.C.x, choosing each from the lengths it
  /// finds, and returns a transcript line per operation.
  static let harness = """
    local function init()
      return { A = { 1, 2, 3, { n = -1 }, "x" }, B = {}, C = { x = { { n = -2 }, 7 } } }
    end
    local function harness(S, seed, nops, env)
      local x = seed
      local function rnd(n) x = (x * 1103515245 + 12345) % 2147483648; return (x >> 8) % n end
      local function canon1(v)
        if v == env.null then return "null" end
        if type(v) == "table" then return "{" .. tostring(v.n) .. "}" end
        if type(v) == "string" then return string.format("%q", v) end
        return tostring(v)
      end
      local function canon(t)
        local n = #t
        local parts = {}
        for i = 0, n + 1 do parts[#parts + 1] = canon1(t[i]) end
        return table.concat(parts, ",") .. "#" .. n
      end
      local function key(v)
        if v == env.null or v == false then return -1 end
        if type(v) == "table" then return v.n or 0 end
        if type(v) == "number" then return v end
        return #v + 1000
      end
      local function strip(e) return (tostring(e):gsub("^[^:]*:%d+: ", "")) end
      local arrays = { function() return S.A end, function() return S.B end,
        function() return S.C.x end }
      local counter = 0
      local function value()
        counter = counter + 1
        local k = rnd(8)
        if k == 0 then return counter
        elseif k == 1 then return "s" .. counter
        elseif k == 2 then return { n = counter }
        elseif k == 3 then return false
        elseif k == 4 then return counter + 0.5
        elseif k == 5 then return env.null
        else
          local t = arrays[rnd(3) + 1]()
          local n = #t
          if n > 0 then return t[rnd(n) + 1] end
          return counter
        end
      end
      local function pos(n)
        local ps = { 1, n, n + 1, n + 2, 0, -1, (n // 2) + 1, math.maxinteger, n - 1, 2 }
        return ps[rnd(#ps) + 1]
      end
      local out = {}
      for step = 1, nops do
        local which = rnd(3) + 1
        local t = arrays[which]()
        local n = #t
        local op = rnd(16)
        local ok, r = pcall(function()
          if op == 0 then return table.insert(t, value())
          elseif op <= 3 then return table.insert(t, pos(n), value())
          elseif op <= 5 then return table.remove(t, pos(n))
          elseif op == 6 then return table.remove(t)
          elseif op == 7 then if n > 0 then t[rnd(n) + 1] = value() end
          elseif op == 8 then
            if env.holes then t[rnd(n + 2) + 1] = nil elseif n > 0 then t[n] = nil end
          elseif op == 9 then table.sort(t, function(a, b) return key(a) < key(b) end)
          elseif op == 10 then
            if n > 0 then
              local f = rnd(n) + 1
              local e = f + rnd(n - f + 1)
              table.move(t, f, e, rnd(n) + 1)
            end
          elseif op == 11 then
            local u = arrays[rnd(3) + 1]()
            if n > 0 then table.move(t, 1, rnd(n) + 1, #u + 1, u) end
          elseif op == 12 then
            local u = arrays[rnd(3) + 1]()
            local v = table.remove(t, pos(n))
            if v ~= nil or env.holes then table.insert(u, rnd(#u + 1) + 1, v) end
            return v
          elseif op == 13 then env.bad(t, pos(n), rnd(3))
          elseif op == 14 then t[0] = value()
          else
            -- several shifts in a row at the front, then back
            local k = rnd(4) + 1
            for _ = 1, k do table.insert(t, 1, value()) end
            for _ = 1, rnd(k + 1) do table.remove(t, 1) end
          end
        end)
        out[#out + 1] = step .. " " .. which .. ":" .. op .. " " .. tostring(ok) .. " "
          .. (ok and canon1(r) or strip(r)) .. " | " .. canon(S.A) .. " | " .. canon(S.B)
          .. " | " .. canon(S.C.x)
      end
      return table.concat(out, "\\n")
    end
    """

  static let featureSource =
    harness + """

      json = require("composable.json")
      local journal = require("composable.journal")
      K = {}
      local env = { null = json.null }
      -- A table that cannot be stored: with kind 0 inserted (the shift happens, the write
      -- fails: as Lua's insert whose write raised, the slot keeps its old value), 1 stored at the
      -- slot, 2 nested in a new table.
      function env.bad(t, p, kind)
        pcall(function()
          if kind == 0 then table.insert(t, p, setmetatable({}, {}))
          elseif kind == 1 then t[p] = setmetatable({}, {})
          else t[p] = { n = 99, inner = { setmetatable({}, {}) } } end
        end)
      end
      local function snapshot(t)
        local copy = {}
        for k, v in pairs(t) do copy[k] = v end
        return copy
      end
      -- The journal's readers against a copy taken when the action began.
      local function check(state, before, bad)
        local names = { "A", "B" }
        for _, name in ipairs(names) do
          local t, old = state[name], before[name]
          local top = math.max(#t, #old) + 3
          for k = -1, top do
            if top > 300 and k > 50 and k < top - 50 then goto continue end
            local expected = old[k] ~= nil
            local got = journal.was_set(t, k)
            if got ~= expected then
              bad[#bad + 1] = ("was_set(%s, %d) = %s, held %s"):format(
                name, k, tostring(got), tostring(old[k]))
            end
            ::continue::
          end
          local ns = {}
          for _, v in pairs(old) do if type(v) == "table" then ns[v.n] = true end end
          local probe = { -1, 0, 5, 99, 150 }
          for n in pairs(ns) do probe[#probe + 1] = n end
          if #t > 300 then probe = {} end
          for _, k in ipairs(probe) do
            local got = journal.had_element(state, name, "n", k)
            if got ~= (ns[k] == true) then
              bad[#bad + 1] = ("had_element(%s, n=%d) = %s"):format(name, k, tostring(got))
            end
          end
        end
        local t, old = state.C.x, before.Cx
        for k = -1, math.max(#t, #old) + 3 do
          if journal.was_set(t, k) ~= (old[k] ~= nil) then
            bad[#bad + 1] = ("was_set(C.x, %d) wrong"):format(k)
          end
        end
      end
      SNAP = function(state)
        return { A = snapshot(state.A), B = snapshot(state.B), Cx = snapshot(state.C.x) }
      end
      CHECK = function(state, before)
        local bad = {}
        check(state, before, bad)
        if #bad > 0 then state.bad = table.concat(bad, "\\n") end
      end
      local F = {}
      function F.initial_state() return init() end
      function F.reduce(state, action)
        if action.type == "code" then
          local env2 = setmetatable({ state = state, K = K, action = action }, { __index = _ENV })
          return assert(load(action.code, "=attack", "t", env2))()
        end
        local before
        if action.check then
          before = { A = snapshot(state.A), B = snapshot(state.B), Cx = snapshot(state.C.x) }
        end
        env.holes = action.holes
        local out = harness(state, action.seed, action.nops, env)
        if action.check then
          local bad = {}
          check(state, before, bad)
          if #bad > 0 then state.bad = table.concat(bad, "\\n") end
        end
        if action.transcript then state.out = out end
        if action.fail then error("rolled back") end
      end
      return F
      """

  static let plainDriver =
    harness + """

      local env = { null = setmetatable({}, { __name = "null" }) }
      function env.bad(t, p, kind)
        if kind == 0 then pcall(function() table.insert(t, p, t[p]) end) end
      end
      local first, last, nops = tonumber(arg[1]), tonumber(arg[2]), tonumber(arg[3])
      for seed = first, last do
        local S = init()
        io.write("==", seed, "\\n", harness(S, seed, nops, env), "\\n")
      end
      """

  static func feature(
    _ limits: LuaLimits = LuaLimits(memory: nil, instructions: nil, seconds: nil)
  )
    throws -> LuaFeature
  {
    try LuaFeature(
      source: LuaString(Self.featureSource), file: "shifts.lua", limits: limits, print: { _ in })
  }

  static func firstDifference(_ a: String, _ b: String) -> String {
    let la = a.components(separatedBy: "\n"), lb = b.components(separatedBy: "\n")
    for i in 0..<max(la.count, lb.count) {
      let x = i < la.count ? la[i] : "<none>", y = i < lb.count ? lb[i] : "<none>"
      if x != y { return "state: \(x)\nplain: \(y)\nprevious: \(i > 0 ? la[i - 1] : "")" }
    }
    return "same"
  }

  // MARK: - Differential against lua5.4, rollback and the journal's readers

  @Test func randomProgramsMatchLua54AndRollBack() throws {
    let nops = 40
    let plain = try PlainLua.transcripts(of: Self.plainDriver, seeds: 1, 40, nops: nops)
    var failures = 0
    for seed in 1...40 {
      let feature = try Self.feature()
      let before = try feature.state()
      do {
        try feature.step([
          "type": "run", "seed": .integer(seed), "nops": .integer(nops), "fail": true,
        ])
        Issue.record("seed \(seed) did not fail")
      } catch {}
      let afterFail = try feature.state()
      if afterFail != before {
        failures += 1
        Issue.record(
          "seed \(seed): rollback left \(LuaValue.differences(from: before, to: afterFail))")
      }
      do {
        try feature.step([
          "type": "run", "seed": .integer(seed), "nops": .integer(nops), "transcript": true,
          "check": true,
        ])
      } catch {
        failures += 1
        Issue.record("seed \(seed): \(error)")
        continue
      }
      let state = try feature.state()
      if case let .string(bad) = state["bad"] {
        failures += 1
        Issue.record("seed \(seed): journal readers:\n\(bad)")
      }
      guard case let .string(out) = state["out"] else { continue }
      let mine = out.string ?? ""
      if mine != plain[seed] {
        failures += 1
        Issue.record(
          "seed \(seed) differs from lua5.4:\n\(Self.firstDifference(mine, plain[seed] ?? ""))")
      }
      if failures > 5 { break }
    }
  }

  // MARK: - Holes, budgets, memory caps

  static func runChecked(
    _ feature: LuaFeature, seed: Int, nops: Int, holes: Bool, fail: Bool
  ) -> String? {
    let before = try? feature.state()
    do {
      try feature.step([
        "type": "run", "seed": .integer(seed), "nops": .integer(nops), "check": true,
        "holes": .boolean(holes), "fail": .boolean(fail),
      ])
    } catch {
      let after = try? feature.state()
      if after != before {
        return
          "seed \(seed): failed (\(error)) and left \(LuaValue.differences(from: before ?? .nil, to: after ?? .nil))"
      }
      return nil
    }
    if let state = try? feature.state(), case let .string(bad) = state["bad"] {
      return "seed \(seed): journal readers:\n\(bad)"
    }
    return nil
  }

  @Test func holesRollBackAndTheJournalReadsThem() throws {
    var issues = 0
    for seed in 1...300 {
      let feature = try Self.feature()
      for round in 0..<3 {
        if let issue = Self.runChecked(
          feature, seed: seed * 10 + round, nops: 40, holes: true, fail: round == 1)
        {
          Issue.record(Comment(rawValue: issue))
          issues += 1
        }
        _ = try? feature.step(["type": "code", "code": "state.bad = nil"])
      }
      if issues > 5 { break }
    }
  }

  @Test func budgetStopsRollBackWhole() throws {
    var issues = 0
    for seed in 1...40 {
      let limit = 2_000 + (seed * 7919) % 120_000
      let feature = try Self.feature(LuaLimits(memory: nil, instructions: limit, seconds: nil))
      for round in 0..<3 {
        if let issue = Self.runChecked(
          feature, seed: seed * 10 + round, nops: 60, holes: round == 2, fail: false)
        {
          Issue.record(Comment(rawValue: "limit \(limit): " + issue))
          issues += 1
        }
        _ = try? feature.step(["type": "code", "code": "state.bad = nil"])
      }
      if issues > 5 { break }
    }
  }

  /// The feature under a memory cap of `limit` bytes, its lists A and B grown by `a` and `b`
  /// elements (as far as the cap lets them); nil when the state alone does not fit.
  static func cappedFeature(limit: Int, a: Int, b: Int) -> LuaFeature? {
    guard let feature = try? Self.feature(LuaLimits(memory: limit, instructions: nil, seconds: nil))
    else { return nil }
    _ = try? feature.step([
      "type": "code",
      "code": .string(
        LuaString(
          "for i = 1, \(a) do state.A[#state.A + 1] = i end for i = 1, \(b) do state.B[i] = 'b' .. i end"
        )),
    ])
    return feature
  }

  @Test func memoryCapsRollBackOrReadRight() throws {
    var issues = 0
    var failed = 0, kept = 0
    for seed in 1...30 {
      // a state big enough that the cap falls inside shifts
      let megabytes = 1.0 + Double(seed % 40) * 0.1
      let limit = Int(megabytes * 1_048_576)
      guard let feature = Self.cappedFeature(limit: limit, a: 3000, b: 2000) else { continue }
      for round in 0..<4 {
        let before = try feature.state()
        let code = """
          local ok = pcall(function()
            local junk = {}
            for i = 1, \(20_000 + seed * 997 % 30_000 + round * 3000) do junk[i] = { i } end
            table.insert(state.A, 1, 'front')
            table.insert(state.B, 1000, 'mid')
            table.remove(state.A, 2)
          end)
          for i = 1, 50 do table.insert(state.A, 1, i) table.remove(state.B, 1) end
          """
        do {
          try feature.step(["type": "code", "code": .string(LuaString(code))])
          kept += 1
        } catch {
          failed += 1
          let after = try feature.state()
          if after != before {
            Issue.record("cap \(megabytes) MB seed \(seed): failed and changed the state")
            issues += 1
          }
        }
        if let issue = Self.runChecked(
          feature, seed: seed * 10 + round, nops: 40, holes: round % 2 == 1, fail: false)
        {
          Issue.record(Comment(rawValue: "cap \(megabytes) MB: " + issue))
          issues += 1
        }
        _ = try? feature.step(["type": "code", "code": "state.bad = nil"])
      }
      if issues > 5 { break }
    }
  }
}

// MARK: - Reading the changes of many shifts

extension ShiftAttackTests {
  static let manyShifts = """
    return {
      initial_state = function()
        local list = {}
        for i = 1, 10000 do list[i] = i end
        return { list = list, n = 0 }
      end,
      reduce = function(state, action)
        local list = state.list
        for k = 1, action.times do table.insert(list, 1, k) table.remove(list, 1) end
        state.n = state.n + 1
        if action.was_set then state.w = require("composable.journal").was_set(list, 1) end
      end,
    }
    """

  /// Within the default limits (64 MiB, 10 million instructions), an action shifts 8 million
  /// slots in a journal of a few thousand entries. Reading its changes (a store's printChanges,
  /// `composable run`) and `journal.was_set` inside the action (under the cap) read each key's
  /// first entry: ten thousand slots, not 8 million (which took 490 MB, and failed the action
  /// that asked `was_set` at the cap). The list ends as it began: only `n` changed.
  @Test func changesOfManyShiftsWithinDefaultLimits() throws {
    let feature = try LuaFeature(source: Self.manyShifts, file: "many.lua", print: { _ in })
    let context = LuaStepContext(dependencies: nil, effects: .keep, readsChanges: true)
    let outcome = feature.step(["type": "go", "times": 400], context)
    #expect(outcome.error == nil, "\(String(describing: outcome.error))")
    let changes = try outcome.changes.get()
    #expect(changes.map(\.path) == ["n"] && changes.first?.new == 1, "\(changes)")
    // Asked inside the action, the reading is charged for the slots it walks, as the shifts
    // were: 200 rounds, 4 million slots, twice, within the 10 million instructions.
    let withWasSet = feature.step(
      ["type": "go", "times": 200, "was_set": true],
      LuaStepContext(dependencies: nil, effects: .keep))
    #expect(withWasSet.error == nil, "\(String(describing: withWasSet.error))")
    #expect(try feature.state()["w"] == true)
  }
}

extension ShiftAttackTests {
  /// The memory filled to the cap by junk kept alive, then shifts caught by pcall one by one
  /// (the journal cannot grow, a new key cannot be added): the action then fails (the state
  /// as before) or goes on (the journal's readers right about it).
  @Test func shiftsAtAFullMemoryCaughtByPcall() throws {
    var issues = 0, caught = 0
    for seed in 1...10 {
      let limit = (6 << 20) + seed * 53_000
      guard let feature = Self.cappedFeature(limit: limit, a: 300, b: 200) else { continue }
      for round in 0..<4 {
        let before = try feature.state()
        let code = """
          local before = SNAP(state)
          local junk = {}
          pcall(function() while true do junk[#junk + 1] = { #junk } end end)
          local errors = 0
          for i = 1, 40 do
            local ok, e = pcall(table.insert, state.A, (i * 7) % (#state.A + 1) + 1, { n = 1000 + i })
            if not ok then errors = errors + 1 end
            ok = pcall(table.remove, state.B, (i * 3) % (#state.B + 1) + 1)
            if not ok then errors = errors + 1 end
            ok = pcall(table.insert, state.C.x, 1, i)
            if not ok then errors = errors + 1 end
            if i % 10 == 0 then junk[#junk] = nil junk[#junk] = nil end
          end
          junk = nil
          collectgarbage()
          K.errors = errors
          CHECK(state, before)
          if action.fail then error("fail") end
          """
        let fail = round % 2 == 1
        do {
          try feature.step([
            "type": "code", "code": .string(LuaString(code)), "fail": .boolean(fail),
          ])
          if fail { Issue.record("did not fail") }
          if case let .string(bad) = try feature.state()["bad"] {
            Issue.record("limit \(limit): journal readers after caught errors:\n\(bad)")
            issues += 1
            _ = try? feature.step(["type": "code", "code": "state.bad = nil"])
          }
        } catch {
          let after = try feature.state()
          if after != before {
            Issue.record(
              "limit \(limit) round \(round): failed (\(error)) and changed: \(LuaValue.differences(from: before, to: after))"
            )
            issues += 1
          }
        }
        if let errors = try? feature.step(["type": "code", "code": "state.e = K.errors"]),
          errors.error == nil,
          case let .integer(count) = try feature.state()["e"], count > 0
        {
          caught += 1
        }
      }
      if issues > 5 { break }
    }
  }
}

extension ShiftAttackTests {
  /// A store's printChanges after random shift programs (holes, sorts, moves, failed adoptions)
  /// prints what snapshot differences show.
  @Test func printedChangesMatchSnapshots() async throws {
    var mismatches = 0
    for seed in 1...60 {
      let feature = try Self.feature()
      let printed = TransactionChangesTests.Printed()
      let store = TransactionChangesTests.store(feature, printed)
      for round in 0..<4 {
        let action: LuaValue = [
          "type": "run", "seed": .integer(seed * 100 + round), "nops": 30,
          "holes": .boolean(round % 2 == 0), "fail": .boolean(round == 3),
        ]
        guard let before = try? feature.state() else { break }
        await store.send(action)
        let text = printed.take()
        guard let after = try? feature.state() else { break }
        // A failed action prints its error alone (the store's report), no changes.
        let expected = round == 3 ? [] : [TransactionChangesTests.expected(action, before, after)]
        if round == 3, after != before {
          mismatches += 1
          Issue.record("seed \(seed): the failed round changed the state")
        }
        if text != expected {
          mismatches += 1
          Issue.record("seed \(seed) round \(round):\nprinted: \(text)\nexpected: \(expected)")
        }
      }
      if mismatches > 3 { break }
    }
  }
}
