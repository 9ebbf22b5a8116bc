import LuaKit
import Testing

/// `LuaValue.height`: the levels of tables at the deepest place, each table measured once.
@Suite struct LuaValueHeightTests {
  static func chain(_ levels: Int) -> LuaValue {
    var value: LuaValue = 1
    for _ in 0..<levels { value = ["x": value] }
    return value
  }

  @Test func levelsAreCountedFromTheValueItself() {
    #expect(LuaValue.integer(3).height() == 0)
    #expect(LuaValue.table(LuaTable()).height() == 1)
    #expect(Self.chain(200).height() == 200)
    #expect(Self.chain(201).height() == nil)
    #expect(Self.chain(5).height(limit: 4) == nil)
  }

  /// A table shared at a deeper place counts there; 2^60 paths cost one visit each.
  @Test func aSharedTableCountsAtItsDeepestPlace() {
    let shared = Self.chain(150)
    #expect(LuaValue.table(LuaTable(entries: ["a": shared, "b": ["c": shared]])).height() == 152)
    var deep: LuaValue = ["leaf": true]
    for _ in 0..<60 { deep = [deep, deep] }
    #expect(deep.height() == 61)
    let tooDeep: LuaValue = ["a": shared, "b": Self.chain(50).replacingLeaf(with: shared)]
    #expect(tooDeep.height() == nil)
  }
}

extension LuaValue {
  /// The chain with its innermost value replaced by `leaf`.
  fileprivate func replacingLeaf(with leaf: LuaValue) -> LuaValue {
    guard case .table = self["x"] else { return ["x": leaf] }
    return ["x": self["x"].replacingLeaf(with: leaf)]
  }
}
