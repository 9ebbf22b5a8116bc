import SeededRandom
import Testing

@testable import LuaKit

/// `writeDescription` reads a value from Lua table by table and must write exactly what the
/// snapshot's `description` says, through proxies too; what a snapshot refuses it writes instead
/// of failing half-way through its output: a cycle labelled as any table reached twice is, too
/// deep a table as a comment.
@Suite struct LuaDescriptionWriterTests {
  func written(_ reference: LuaReference, in vm: LuaVM) throws -> String {
    var text = ""
    try vm.writeDescription(of: reference, to: &text)
    return text
  }

  @Test func randomValuesAreWrittenAsTheirSnapshotsDescribeThem() throws {
    let vm = try LuaVM()
    var make = RoundTripPropertyTests.Make(random: SplitMix64(seed: 2026_11_23))
    for iteration in 0..<3_000 {
      let value = make.luaValue(depth: 4)
      let reference = try vm.reference(to: value)
      let expected = try vm.value(of: reference).description
      let text = try written(reference, in: vm)
      #expect(text == expected, "iteration \(iteration)")
      if text != expected { return }
    }
  }

  @Test func aTableWithHolesKeysOfEveryKindAndAnEmptyArray() throws {
    let vm = try LuaVM()
    let value: LuaValue = [
      "list": [1, 2.5, "a\r\nb\u{0}"], "holes": .table(LuaTable(entries: [1: 1, 3: 3])),
      "empty": .table(LuaTable(array: [])), "map": [:], "nan": .zeroOverZero,
      "keys": .table(LuaTable(entries: [true: 1, 2.5: 2, "end": 3, "a key": 4, -1: 5])),
    ]
    let reference = try vm.reference(to: value)
    let text = try written(reference, in: vm)
    #expect(text == value.description)
    #expect(
      text
        == #"{ empty = {}, holes = { [1] = 1, [3] = 3 }, keys = { [-1] = 5, [2.5] = 2, "#
        + #"["a key"] = 4, ["end"] = 3, [true] = 1 }, list = { 1, 2.5, "a\r\nb\000" }, "#
        + #"map = {}, nan = 0/0 }"#)
  }

  @Test func aProxyIsWrittenAsTheStateItStandsFor() throws {
    let vm = try LuaVM()
    let state = try vm.reference(to: ["todos": [["done": false, "id": 1]], "count": 2])
    let proxy = try vm.transactionalProxy(of: state)
    #expect(try written(proxy, in: vm) == "{ count = 2, todos = { { done = false, id = 1 } } }")
  }

  @Test func aCycleIsLabelledAndTooDeepTablesAreAComment() throws {
    let vm = try LuaVM()
    let table = try vm.reference(to: ["name": "loop"])
    let link = try vm.load("local t = ... t.self = t t.list = { t }", chunkName: "cycle")
    try vm.call(link, arguments: [.reference(table)])
    #expect(
      try written(table, in: vm)
        == #"<1>{ list = { <1> }, name = "loop", self = <1> }"#)
    let deep = try vm.reference(to: [:])
    let nest = try vm.load(
      "local t = ... for _ = 1, 250 do local n = {} t.n = n t = n end", chunkName: "deep")
    try vm.call(nest, arguments: [.reference(deep)])
    let text = try written(deep, in: vm)
    #expect(
      text.hasSuffix(
        "{ --[[ nested more than 200 levels deep ]] }" + String(repeating: " }", count: 200)))
  }

  /// The walk that finds shared tables goes depth first on the Lua stack, and past
  /// `deepestWalk` levels leaves what it meets to wait in a Lua table: a table met again only
  /// 9,000 levels down, and a cycle back to the root from there, are still found shared.
  @Test func sharingFoundPastTheDeepestWalkIsLabelled() throws {
    #expect(LuaVM.deepestDescriptionWalk < 9_000)
    let vm = try LuaVM()
    let root = try vm.reference(to: [:])
    let build = try vm.load(
      """
      local root = ...
      local one, two = { name = "one" }, { name = "two" }
      local t = root
      for _ = 1, 9000 do local n = { leaf = {} } t.n = n t = n end
      t.last, t.cycle = one, root
      root.a, root.b = one, two
      """, chunkName: "deep")
    try vm.call(build, arguments: [.reference(root)])
    let text = try written(root, in: vm)
    #expect(
      text.hasPrefix(#"<1>{ a = <2>{ name = "one" }, b = { name = "two" }, n = { leaf = {}, "#))
  }

  /// The set of tables a walk met: every address once, however many, in memory of its own.
  @Test func theAddressSetKeepsEachAddressOnce() {
    let set = LuaAddressSet()
    let addresses = (1...100_000).map { UnsafeRawPointer(bitPattern: $0 * 48)! }
    #expect(addresses.allSatisfy { set.insert($0) })
    #expect(set.count == 100_000)
    for address in addresses.shuffled().prefix(1_000) {
      #expect(set.contains(address))
      #expect(!set.insert(address))
    }
    #expect(!set.contains(UnsafeRawPointer(bitPattern: 100_001 * 48)!))
    #expect(!set.contains(UnsafeRawPointer(bitPattern: 24)!))
    #expect(set.count == 100_000)
  }
}
