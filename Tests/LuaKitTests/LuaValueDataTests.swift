import LuaKit
import SeededRandom
import Testing

/// `LuaValue.dataProblem`: whether a value is plain data, as a state is, and where it is not;
/// known at once for data however shared its tables, and found along one path otherwise.
@Suite struct LuaValueDataTests {
  /// A table shared at every level, 2^40 paths through 41 tables: a walk that followed paths
  /// would never end; the answer comes from the tables' own counts, and the problem at the
  /// bottom is found down one path.
  @Test func aTableSharedAtEveryLevelIsCheckedInLinearTime() throws {
    let vm = try LuaVM()
    let data = try vm.evaluate(
      "local t = { 'leaf' } for _ = 1, 40 do t = { t, t } end return t").first ?? .nil
    #expect(data.dataProblem == nil)
    let function = try vm.evaluate(
      "local t = { print } for _ = 1, 40 do t = { t, t } end return t").first ?? .nil
    #expect(
      function.dataProblem
        == LuaDataProblem(
          path: String(repeating: "[1]", count: 41), message: "a function is not data"))
  }

  /// What a table says of itself (its identity, whether its original had a metatable) costs a
  /// `LuaValue` no size: it stays an inline string and a byte.
  @Test func aValueStaysSeventeenBytes() {
    #expect(MemoryLayout<LuaValue>.size <= MemoryLayout<LuaString>.size + 1)
  }

  @Test func eachKindThatIsNotDataIsNamedWhereItIs() throws {
    let vm = try LuaVM()
    func problem(_ source: String) throws -> LuaDataProblem? {
      try (vm.evaluate("return " + source).first ?? .nil).dataProblem
    }
    #expect(try problem("{ a = { b = print } }") == .init(path: ".a.b", message: "a function is not data"))
    #expect(try problem("{ coroutine.create(print) }") == .init(path: "[1]", message: "a coroutine is not data"))
    #expect(
      try problem("{ x = setmetatable({}, {}) }")
        == .init(path: ".x", message: "a table with a metatable is not data"))
    #expect(
      try problem("{ [print] = 1 }") == .init(path: "", message: "a key that is a function is not data"))
    #expect(try problem("print") == .init(path: "", message: "a function is not data"))
    #expect(try problem("{ 1, 2.5, 'x', true, { y = { } } }") == nil)
    // The first problem in key order, so the message is the same every run.
    #expect(try problem("{ b = print, a = { print } }")?.path == ".a[1]")
  }

  /// The array marker a Swift array carries in Lua is not a metatable of the value's own.
  @Test func theArrayMarkerIsData() throws {
    let vm = try LuaVM()
    let identity = try vm.evaluate("return function(x) return x end").first
    guard case let .function(function)? = identity else {
      Issue.record("no function")
      return
    }
    let back = try vm.call(function, .table(LuaTable(array: []))).first ?? .nil
    #expect(back.tableValue?.kind == .array)
    #expect(back.dataProblem == nil)
  }

  /// Whatever the sets and removals, nested or not, a table's `isData` is what a walk of it
  /// says (a table is no key of data). (A reference is needed for values that are not data: one function, shared.)
  @Test func isDataFollowsEveryChange() throws {
    let vm = try LuaVM()
    let function = try vm.evaluate("return print").first ?? .nil
    var random = SplitMix64(seed: 27)
    func walk(_ value: LuaValue) -> Bool {
      switch value {
      case .function, .other: return false
      case let .table(table):
        return !table.hadMetatable
          && table.entries.allSatisfy { $0.key.tableValue == nil && walk($0.key) && walk($0.value) }
      default: return true
      }
    }
    func draw(depth: Int) -> LuaValue {
      switch random.below(depth > 2 ? 4 : 6) {
      case 0: return .nil
      case 1: return .integer(random.below(5))
      case 2: return .string(LuaString("s\(random.below(3))"))
      case 3: return function
      default:
        var table = LuaTable()
        for _ in 0..<random.below(4) { table[draw(depth: depth + 1)] = draw(depth: depth + 1) }
        return .table(table)
      }
    }
    for _ in 0..<2_000 {
      var table = LuaTable()
      for _ in 0..<random.below(12) {
        var key = draw(depth: 2)
        if key == .nil || key.tableValue != nil { key = .integer(random.below(4)) }
        if table[key].tableValue != nil, random.below(2) == 0 {
          // A change inside a nested table, through the value's own subscripts.
          var value = LuaValue.table(table)
          value[key][.integer(random.below(3))] = draw(depth: 1)
          table = value.tableValue ?? LuaTable()
        } else {
          table[key] = draw(depth: 0)
        }
        #expect(table.isData == walk(.table(table)), "\(table)")
      }
    }
  }
}
