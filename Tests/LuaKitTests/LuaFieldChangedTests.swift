import LuaKit
import Testing

/// `transactionChanged(field:of:)` against what the field holds, as a property: random
/// programs of writes (values written back, moves, sorts, removes, aliases from outside the
/// field, writes beside it) run in a transaction, and the answer is compared with a fingerprint
/// of what the field reaches, taken in Lua before and after (each table by its identity, each
/// number by its subtype and bits). A change is never missed; with no new table stored, the
/// answer is exact. (A new table stored, written and taken out again may be reported as a
/// change: a save of the same value, never a lost one.)
@Suite struct LuaFieldChangedTests {
  /// The fingerprint of what `v` reaches: each table by an id kept in `ids` across calls (so a
  /// table moved is the same table), its contents written the first time it is met.
  static let fingerprint = """
    local ids, count = {}, 0
    local function fp(v, out, met)
      if type(v) == "table" then
        if not ids[v] then count = count + 1 ids[v] = count end
        out[#out + 1] = "#" .. ids[v]
        if met[v] then return end
        met[v] = true
        local keys = {}
        for k in pairs(v) do keys[#keys + 1] = k end
        table.sort(keys, function(a, b)
          if type(a) ~= type(b) then return type(a) < type(b) end
          return a < b
        end)
        out[#out + 1] = "{"
        for _, k in ipairs(keys) do
          out[#out + 1] = tostring(k) .. "="
          fp(v[k], out, met)
        end
        out[#out + 1] = "}"
      elseif math.type(v) == "float" then
        out[#out + 1] = string.format("f%a", v)
      else
        out[#out + 1] = type(v) .. ":" .. tostring(v)
      end
    end
    local function print_of(v) local out = {} fp(v, out, {}) return table.concat(out, " ") end
    """

  /// The states a program starts from: only the field holds tables (the quick answer decides),
  /// a table beside it (the walk decides), and one of its tables shared with a field beside it.
  static let states: [String] = [
    #"{ items = { { t = "a", n = 0 }, { t = "b", n = 1 }, { t = "c", n = 2.5 } }, other = "x" }"#,
    #"{ items = { { t = "a", n = 0 }, { t = "b", n = 1 } }, other = "x", side = { s = 1 } }"#,
    #"{ items = { { t = "a", n = 0 }, { t = "b", n = 1 } }, side = { s = 1 } }"#
      + #" -- shared: side.alias = items[1]"#,
  ]

  /// A random operation on the state, and whether it stores a new table.
  static func operation(_ random: inout Random) -> (String, storesNewTable: Bool) {
    let i = random.next(4) + 1
    let j = random.next(4) + 1
    let value = ["0", "1", "0.0", "-0.0", "2.5", "\"s\"", "nil"][random.next(7)]
    switch random.next(16) {
    case 0: return ("local it = state.items[\(i)] if it then it.n = \(value) end", false)
    case 1:
      return ("local it = state.items[\(i)] if it then local o = it.n it.n = 9 it.n = o end", false)
    case 2:
      return ("state.items[\(i)], state.items[\(j)] = state.items[\(j)], state.items[\(i)]", false)
    case 3:
      return (
        "if #state.items > 0 then table.remove(state.items, \(i) % #state.items + 1) end", false
      )
    case 4: return ("table.move(state.items, \(i), \(i + 1), \(j))", false)
    case 5: return ("state.other = \(["\"x\"", "\"y\"", "nil"][random.next(3)])", false)
    case 6: return ("if state.side then state.side.s = \(value) end", false)
    case 7: return ("if state.side then state.side.alias = state.items[\(i)] end", false)
    case 8:
      return ("if state.side and state.side.alias then state.side.alias.t = \"z\" end", false)
    case 9: return ("state.items = state.items state.items[\(i)] = state.items[\(i)]", false)
    case 10:
      return (
        "table.sort(state.items, function(a, b) return (a and a.t or '') < (b and b.t or '') end)",
        false
      )
    case 11: return ("state.items[\(i)] = nil", false)
    case 12:
      return (
        "local t = table.remove(state.items) if t then table.insert(state.items, t) end", false
      )
    case 13:
      return ("table.insert(state.items, \(i) % (#state.items + 1) + 1, { t = 'new' })", true)
    case 14: return ("state.items[\(i)] = { t = 'a', n = 0 }", true)
    default:
      return (
        "local t = { t = 'temp' } table.insert(state.items, 1, t) t.n = 5 table.remove(state.items, 1)",
        true
      )
    }
  }

  @Test func theAnswerMatchesWhatTheFieldHolds() throws {
    var random = Random(seed: 0x5eed)
    var (exact, errors, changed) = (0, 0, 0)
    for round in 0..<600 {
      let stateIndex = random.next(Self.states.count)
      let field: LuaValue = random.next(4) == 0 ? .nil : "items"
      let operations = (0..<(random.next(6) + 1)).map { _ in Self.operation(&random) }
      let storesNewTable = operations.contains { $0.storesNewTable }
      let program = operations.map(\.0).joined(separator: "\n")
      let vm = try LuaVM()
      let root = try vm.reference(to: try vm.evaluate("return " + Self.states[stateIndex])[0])
      let proxy = try vm.transactionalProxy(of: root)
      let read = field == .nil ? "state" : "state.items"
      let body = """
        local state = ...
        \(Self.fingerprint)
        local before = print_of(\(read))
        \(program)
        return print_of(\(read)) ~= before
        """
      // The alias of the shared state is made before the transaction the program runs in.
      if stateIndex == 2 {
        let kept = (
          try vm.load("local state = ... state.side.alias = state.items[1]", chunkName: "share"),
          try vm.reference(to: [:])
        )
        let call = try LuaTransactionCall(function: kept.0, state: proxy, context: kept.1, in: vm)
        _ = try withExtendedLifetime(kept) { try vm.callTransaction(call, argument: .nil) }
        vm.commitTransaction()
      }
      // The call holds the references' slots: they are kept alive while it is used.
      let kept = (try vm.load(body, chunkName: "program"), try vm.reference(to: [:]))
      let call = try LuaTransactionCall(function: kept.0, state: proxy, context: kept.1, in: vm)
      let truth: Bool
      do {
        truth =
          try withExtendedLifetime(kept) { try vm.callTransaction(call, argument: .nil) } == true
      } catch {
        errors += 1
        continue
      }
      let answer = vm.transactionChanged(field: field, of: root)
      let context = "round \(round), state \(stateIndex), field \(field):\n\(program)"
      if truth {
        #expect(answer, "a change missed: \(context)")
      } else if !storesNewTable {
        #expect(!answer, "no change, answered changed: \(context)")
      }
      if answer == truth { exact += 1 }
      if truth { changed += 1 }
      vm.rollbackTransaction()
    }
    // The programs reach every case: most run, and both answers come up.
    #expect(errors < 60, "\(errors) programs failed")
    #expect(exact > 400 && changed > 100 && changed < 500, "\(exact) exact, \(changed) changed")
  }

  /// Thousands of values written and written back, in an order that makes looking back for
  /// each one's first entry cost the whole journal: the answer falls back on the full reading
  /// of the journal and stays exact.
  @Test(arguments: [("", false), ("state.items[1500].n = 7", true)])
  func manyValuesWrittenBackAreNoChange(_ last: String, _ changed: Bool) throws {
    let vm = try LuaVM()
    let root = try vm.reference(
      to: try vm.evaluate(
        "local items = {} for i = 1, 3000 do items[i] = { n = 0 } end "
          + "return { items = items, side = { s = 1 } }")[0])
    let proxy = try vm.transactionalProxy(of: root)
    let body = """
      local state = ...
      for i = 1, 3000 do state.items[i].n = 1 end
      for i = 1, 3000 do state.items[i].n = 0 end
      state.side.s = 2
      \(last)
      """
    // The call holds the references' slots: they are kept alive while it is used.
    let kept = (try vm.load(body, chunkName: "back"), try vm.reference(to: [:]))
    let call = try LuaTransactionCall(function: kept.0, state: proxy, context: kept.1, in: vm)
    _ = try withExtendedLifetime(kept) { try vm.callTransaction(call, argument: .nil) }
    #expect(vm.transactionChanged(field: "items", of: root) == changed)
    #expect(vm.transactionChanged(field: "side", of: root))
    vm.rollbackTransaction()
  }

  /// A small seeded generator: the same programs on every run.
  struct Random {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next(_ bound: Int) -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int((state >> 33) % UInt64(bound))
    }
  }
}
