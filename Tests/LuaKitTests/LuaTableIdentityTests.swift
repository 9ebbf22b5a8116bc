import LuaDataGenerators
import Testing

@testable import LuaKit

/// A table's identity: one Lua table read once is one identity wherever a snapshot holds it, a
/// copy keeps it, a change makes a new one; equality and hashing ignore it and stay linear in
/// the distinct tables however many paths lead to them; a push makes one Lua table of it.
@Suite struct LuaTableIdentityTests {
  /// `local t = {"leaf"} for i = 1, levels do t = {t, t} end`: 2^levels paths, levels + 1 tables.
  static let dagSource = "local t = {'leaf'} for i = 1, 40 do t = {t, t} end return t"

  /// The same shape built in Swift: each level one table held twice.
  static func dag(levels: Int, leaf: LuaValue = "leaf") -> LuaValue {
    var table: LuaValue = [leaf]
    for _ in 0..<levels { table = [table, table] }
    return table
  }

  @Test func aCopyKeepsItsIdentityAndAChangeMakesANewOne() {
    let table = LuaTable(array: [1, 2])
    var copy = table
    #expect(copy.identity == table.identity)
    copy.append(3)
    #expect(copy.identity != table.identity)
    var marked = table
    marked.kind = .map
    #expect(marked.identity != table.identity)
    #expect(LuaTable().identity != LuaTable().identity)  // two new tables are two tables
    #expect(marked == table)  // identity and kind are not part of equality
  }

  @Test func aTableReadOnceIsOneIdentityWhereverTheSnapshotHoldsIt() throws {
    let vm = try LuaVM()
    let value = try vm.evaluate("local t = { 1 } return { a = t, b = t, c = { 1 } }")[0]
    #expect(value.a.tableValue?.identity == value.b.tableValue?.identity)
    #expect(value.a.tableValue?.identity != value.c.tableValue?.identity)
    #expect(value.sharedTables == [value.a.tableValue!.identity])
    #expect(value.c.sharedTables.isEmpty)
  }

  /// Two snapshots of one shared structure, read separately, are of different identities at
  /// every level: comparing and hashing them meets each pair once (2^40 paths, 41 tables).
  @Test func equalityAndHashOfSeparateSnapshotsOfADagAreLinear() throws {
    let vm = try LuaVM()
    let first = try vm.evaluate(Self.dagSource)[0]
    let second = try vm.evaluate(Self.dagSource)[0]
    #expect(first.tableValue?.identity != second.tableValue?.identity)
    #expect(first == second)
    #expect(first.hashValue == second.hashValue)
    #expect(first == Self.dag(levels: 40))
    #expect(first != Self.dag(levels: 40, leaf: "other"))
    #expect(first != Self.dag(levels: 39))
    #expect(Set([first, second, Self.dag(levels: 40)]).count == 1)
  }

  /// Hashing agrees with equality whatever the order entries were made in and whatever is
  /// shared: equal values built every way hash alike.
  @Test func equalValuesHashAlikeHoweverTheyAreBuilt() {
    let leaf: LuaValue = ["x": 1, "y": [true, 2.5]]
    let shared: LuaValue = ["a": leaf, "b": leaf]
    var separate: LuaValue = [:]
    separate.b = ["y": [true, 2.5], "x": 1]
    separate.a = ["x": 1, "y": [true, 2.5]]
    #expect(shared == separate)
    #expect(shared.hashValue == separate.hashValue)
    #expect(shared.sharedTables.count == 1)
    #expect(separate.sharedTables.isEmpty)
    var changed = separate
    changed.b.y[1] = false
    #expect(changed != shared)
  }

  /// NaN equals itself in a snapshot, and so inside a shared table.
  @Test func nanInASharedTableEqualsItself() {
    let inner: LuaValue = [.number(.nan)]
    let value: LuaValue = [inner, inner]
    #expect(value == [[.number(.nan)], [.number(.nan)]])
  }

  /// A shared table pushed into Lua is one Lua table at both places, and read back it is
  /// shared again: sharing survives the round trip, at every level of a DAG.
  @Test func aPushMakesOneLuaTablePerIdentity() throws {
    let vm = try LuaVM()
    let dag = Self.dag(levels: 40)
    let check = try vm.load(
      """
      local t, levels = ...
      for _ = 1, 40 do
        if not rawequal(t[1], t[2]) then return false end
        t = t[1]
      end
      return t[1] == "leaf"
      """, chunkName: "check")
    #expect(try vm.call(check, arguments: [.value(dag)]) == [true])
    let back = try vm.value(of: try vm.reference(to: dag))
    #expect(back == dag)
    #expect(back.sharedTables.count == 40)
    // Writing through one path shows at the other, as in Lua; two equal tables stay two.
    let write = try vm.load("local t = ... t[1].x = 1 return t[2].x", chunkName: "write")
    let one: LuaValue = [:]
    #expect(try vm.call(write, arguments: [.value([one, one])]) == [1])
    #expect(try vm.call(write, arguments: [.value([[:], [:]])]) == [.nil])
  }

  /// `{ deep, chain }` where `deep` is 100 levels and `chain` holds it again below `links` more.
  static func sharedDeepSource(links: Int, deepFirst: Bool) -> String {
    """
    local deep = {} local t = deep
    for _ = 1, 99 do t.n = {} t = t.n end
    local chain = {} local c = chain
    for _ = 1, \(links) do c.n = {} c = c.n end
    c.deep = deep
    return \(deepFirst ? "{ deep, chain }" : "{ chain, deep }")
    """
  }

  /// A shared table counts at its deepest place, in a snapshot and in a push alike, whichever
  /// place is read first: `deep` (100 levels) below the root (1), `chain` (1) and its links
  /// (98) reaches level 200; one link more is refused.
  @Test(arguments: [true, false]) func aSharedTableCountsAtItsDeepestPlace(deepFirst: Bool) throws {
    let vm = try LuaVM()
    let fits = try vm.evaluate(Self.sharedDeepSource(links: 98, deepFirst: deepFirst))[0]
    #expect(fits.sharedTables.count == 1)
    let pushed = try vm.reference(to: fits)
    #expect(try vm.value(of: pushed) == fits)
    let pushed201 = Self.error { try vm.reference(to: ["wrapped": fits]) }
    #expect(pushed201.hasPrefix("value.wrapped["), "\(pushed201)")
    #expect(pushed201.hasSuffix(": nested more than 200 levels deep"), "\(pushed201)")
    let read = Self.error { try vm.evaluate(Self.sharedDeepSource(links: 99, deepFirst: deepFirst)) }
    #expect(read.hasSuffix(": nested more than 200 levels deep"), "\(read)")
  }

  /// The description of what `body` threw, or "no error".
  static func error(_ body: () throws -> Any) -> String {
    do {
      _ = try body()
      return "no error"
    } catch {
      return "\(error)"
    }
  }

  /// A table known to be a tree (no table below it reached twice: walks skip looking) is one,
  /// for every table of random values read by a snapshot, by the data file reader, built and
  /// changed in Swift; and a snapshot of a tree knows it is one.
  @Test func aTableKnownToBeATreeIsOne() throws {
    let vm = try LuaVM()
    var make = RandomLuaData(seed: 2027_02_01)
    func check(_ value: LuaValue, _ origin: String) {
      guard case let .table(table) = value else { return }
      if table.identity.isTree {
        let shape = value.sharingShape
        #expect(Set(shape).count == shape.count, "\(origin): a tree that shares \(value)")
      }
      for (_, element) in table.entries { check(element, origin) }
    }
    for iteration in 0..<300 {
      var state = make.state()
      check(state, "built \(iteration)")
      let read = try vm.value(of: try vm.reference(to: state))
      check(read, "snapshot \(iteration)")
      check(
        try LuaDataFile.read(Array(try LuaDataFile.text(of: state).utf8), chunkName: "x"),
        "data file \(iteration)")
      state["field0"] = state["field1"]
      state["field2"] = 1
      check(state, "changed \(iteration)")
    }
    let tree = try vm.evaluate("return { a = { 1 }, b = { { 2 } } }")[0]
    #expect(tree.tableValue?.identity.isTree == true)
    let shared = try vm.evaluate("local t = {} return { a = t, b = { t } }")[0]
    #expect(shared.tableValue?.identity.isTree == false)
    // (`b` alone is a tree, but may not be known as one: a snapshot that read `t` before it
    // met it again inside `b`. Not knowing costs a look, never a wrong answer.)
  }

  /// A dictionary literal makes its table at once, with one identity, as setting its fields one
  /// by one would make it: a float key with an integral value is the integer key, a later key
  /// replaces an earlier equal one, nil removes; it is a tree when it holds no table.
  @Test func aDictionaryLiteralIsItsFieldsSetInOrder() {
    let key: LuaValue = 1.0
    let literal: LuaValue = [key: "one", "a": 1, "gone": 2, "gone": nil, 1: "uno", "b": nil]
    let fields: [(LuaValue, LuaValue)] = [
      (key, "one"), ("a", 1), ("gone", 2), ("gone", nil), (1, "uno"),
    ]
    var stepwise = LuaTable()
    for (key, value) in fields { stepwise[key] = value }
    #expect(literal == .table(stepwise))
    #expect(literal.tableValue?.count == 2)
    #expect(literal[1] == "uno")
    #expect(literal.tableValue?.identity.isTree == true)
    #expect(literal.tableValue?.kind == .map)
    let holding: LuaValue = ["inner": ["x": 1]]
    #expect(holding.tableValue?.identity.isTree == false)
    let first: LuaValue = ["type": "increment"], second: LuaValue = ["type": "increment"]
    #expect(first.tableValue?.identity != second.tableValue?.identity)
  }

  /// A `LuaValue` stays 17 bytes (24 with alignment): the identity costs a table's word, not
  /// every value's.
  @Test func theIdentityAddsNothingToAValuesSize() {
    #expect(MemoryLayout<LuaValue>.size == 17)
    #expect(MemoryLayout<LuaValue>.stride == 24)
  }
}
