import Composable
import ComposableLua
import Foundation
import LuaKit
import SeededRandom
import TestSupport
import Testing

/// Generated reducer programs that write through every kind of reference feature code can hold
/// (the state's proxies, tables kept in a module local from earlier actions, tables reached
/// through `next`, `rawset`, `table.*`, new tables stored and moved between parents), then
/// fail in every way (an error, an error object, the instruction budget, the memory cap, a
/// malformed effect, a table that cannot be stored). After each failure the state must be
/// exactly the snapshot taken before the action; a write that escaped the journal would show.
///
/// The seed is fixed so a failure reproduces; `TRANSACTION_SEED=n swift test --filter
/// RandomTransactionTests` tries another. A failure prints the case's program.
@Suite struct RandomTransactionTests {
  static let cases = 10_000

  /// A feature running `interpreter`, and the seed of the generator of its programs:
  /// `TRANSACTION_SEED` when set, `seed` otherwise (failures name it).
  static func program(seed: UInt64) throws -> (feature: LuaFeature, seed: UInt64) {
    let chosen = ProcessInfo.processInfo.environment["TRANSACTION_SEED"].flatMap(UInt64.init)
    let feature = try LuaFeature(
      source: interpreter, file: "program.lua",
      limits: LuaLimits(memory: 16 << 20, instructions: 200_000))
    return (feature, chosen ?? seed)
  }

  static let interpreter = """
    local saved = {}
    local M = {}
    function M.initial_state()
      return { a = { 1, 2, { x = 1 } }, b = { c = { d = "d" } }, n = 0 }
    end

    local function resolve(state, path)
      local t = state
      for _, k in ipairs(path) do
        local nested = t[k]
        if type(nested) ~= "table" then return nil end
        t = nested
      end
      return t
    end

    local function build(spec)
      if type(spec) ~= "table" then return spec end
      if spec[1] == "saved" then return saved[spec[2]] end
      local t = {}
      for k, v in pairs(spec[2]) do t[k] = build(v) end
      return t
    end

    local ops = {
      set = function(state, op)
        local t = resolve(state, op[2]) if t then t[op[3]] = build(op[4]) end
      end,
      rawset = function(state, op)
        local t = resolve(state, op[2]) if t then rawset(t, op[3], build(op[4])) end
      end,
      next_write = function(state, op)
        local t = resolve(state, op[2])
        if not t then return end
        local k, v = next(t)
        while k ~= nil do
          if type(v) == "table" then v[op[3]] = build(op[4]) return end
          k, v = next(t, k)
        end
      end,
      pairs_rawset = function(state, op)
        local t = resolve(state, op[2])
        if not t then return end
        for _, v in pairs(t) do
          if type(v) == "table" then rawset(v, op[3], build(op[4])) return end
        end
      end,
      save = function(state, op) saved[op[3]] = resolve(state, op[2]) end,
      new_plain = function(state, op) saved[op[2]] = build(op[3]) end,
      write_saved = function(state, op)
        local t = saved[op[2]]
        if type(t) == "table" then t[op[3]] = build(op[4]) end
      end,
      -- At a position (op[4], op[3]): a shift of the elements after it, out of range an error.
      insert = function(state, op)
        local t = resolve(state, op[2])
        if not t then return end
        if op[4] then pcall(table.insert, t, op[4], build(op[3]))
        else table.insert(t, build(op[3])) end
      end,
      remove = function(state, op)
        local t = resolve(state, op[2])
        if not t then return end
        if op[3] then pcall(table.remove, t, op[3]) else table.remove(t) end
      end,
      sort = function(state, op)
        local t = resolve(state, op[2])
        if t then table.sort(t, function(x, y) return tostring(x) < tostring(y) end) end
      end,
      move = function(state, op)
        local from, to = resolve(state, op[2]), resolve(state, op[4])
        if not from or not to then return end
        local value = from[op[3]]
        from[op[3]] = nil
        to[op[5]] = value
      end,
      count = function(state) state.n = state.n + 1 end,
    }

    local failures = {
      error = function() error("fails") end,
      error_object = function()
        error(setmetatable({}, { __tostring = function() return "object" end }))
      end,
      budget = function() while true do end end,
      memory = function() local t = {} while true do t[#t + 1] = { 1, 2, 3 } end end,
      malformed = function() return { kind = "not an effect" } end,
      bad_store = function(state) state.bad = setmetatable({}, {}) end,
    }

    function M.reduce(state, action)
      for _, op in ipairs(action.ops) do ops[op[1]](state, op) end
      if action.fail then return failures[action.fail](state) end
    end
    return M
    """

  @Test func failedActionsLeaveTheStateExactlyAsItWas() async throws {
    let (feature, seed) = try Self.program(seed: 12)
    var random = SplitMix64(seed: seed)
    let initial = try feature.state()
    var checked = 0, failures = 0
    for index in 0..<Self.cases {
      // Seconds of work: let the other tests' tasks run on this thread now and then.
      if index % 100 == 0 { await Task.yield() }
      let action = Program.random(using: &random)
      guard let before = try? feature.state() else {
        // The programs can make a cycle, which a snapshot refuses: start over.
        try feature.replaceState(with: initial)
        continue
      }
      let error = featureError {
        // Checked as a store checks it: `malformed` fails the action, rolled back.
        let outcome = feature.step(action, LuaStepContext(dependencies: nil, effects: .check))
        if let error = outcome.error { throw error }
      }
      guard action.fail != .nil else { continue }
      checked += 1
      if error == nil {
        Issue.record("case \(index) (seed \(seed)) did not fail: \(action)")
        break
      }
      let after = try? feature.state()
      if after != before {
        failures += 1
        Issue.record("""
          case \(index) (seed \(seed)) changed the state although it failed (\(error!)):
          program: \(action)
          before:  \(before)
          after:   \(after.map { "\($0)" } ?? "no snapshot")
          """)
        if failures > 3 { break }
      }
    }
    #expect(checked > Self.cases / 3)
  }
}

/// Generates the actions the interpreter runs.
enum Program {
  static let keys: [LuaValue] = ["a", "b", "c", "x", 1, 2, 3]
  static let paths: [[LuaValue]] = [[], ["a"], ["b"], ["b", "c"], ["a", 3], ["x"], ["c"]]

  static func random(using random: inout SplitMix64) -> LuaValue {
    var ops: [LuaValue] = []
    for _ in 0..<random.below(8) + 1 { ops.append(op(using: &random)) }
    var action: LuaValue = ["type": "run", "ops": .table(LuaTable(array: ops))]
    if random.below(2) == 0 {
      let roll = random.below(100)
      action.fail = switch roll {
      case 0: "budget"
      case 1: "memory"
      case 2..<20: "error_object"
      case 20..<35: "malformed"
      case 35..<45: "bad_store"
      default: "error"
      }
    }
    return action
  }

  static func op(using random: inout SplitMix64) -> LuaValue {
    let path = LuaValue.table(LuaTable(array: paths[random.below(paths.count)]))
    let key = keys[random.below(keys.count)]
    let slot = LuaValue.integer(random.below(3) + 1)
    switch random.below(12) {
    case 0: return ["set", path, key, value(using: &random, depth: 0)]
    case 1: return ["rawset", path, key, value(using: &random, depth: 0)]
    case 2: return ["next_write", path, key, value(using: &random, depth: 0)]
    case 3: return ["pairs_rawset", path, key, value(using: &random, depth: 0)]
    case 4: return ["save", path, slot]
    case 5: return ["new_plain", slot, value(using: &random, depth: 0)]
    case 6: return ["write_saved", slot, key, value(using: &random, depth: 0)]
    case 7:
      let position = random.below(3)
      let value = value(using: &random, depth: 0)
      return position == 0 ? ["insert", path, value] : ["insert", path, value, .integer(position)]
    case 8:
      let position = random.below(3)
      return position == 0 ? ["remove", path] : ["remove", path, .integer(position)]
    case 9: return ["sort", path]
    case 10:
      let to = LuaValue.table(LuaTable(array: paths[random.below(paths.count)]))
      return ["move", path, key, to, keys[random.below(keys.count)]]
    default: return ["count"]
    }
  }

  /// A value to write: a scalar, a new table (perhaps holding a saved reference), or a table
  /// saved by an earlier op or action.
  static func value(using random: inout SplitMix64, depth: Int) -> LuaValue {
    switch random.below(depth > 1 ? 3 : 6) {
    case 0: return .integer(random.below(100))
    case 1: return .string(LuaString("s\(random.below(10))"))
    case 2: return .boolean(random.below(2) == 0)
    case 3: return ["saved", .integer(random.below(3) + 1)]
    default:
      var fields = LuaTable()
      for _ in 0..<random.below(3) {
        fields[keys[random.below(keys.count)]] = value(using: &random, depth: depth + 1)
      }
      return ["table", .table(fields)]
    }
  }
}
