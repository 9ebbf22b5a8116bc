import Foundation
import LuaKit
import SeededRandom
import Testing

@testable import ComposableHost

/// The statements `:test` writes for a change, run on the value before: they must make exactly
/// the value after, whatever the change (sequences grown, shrunk or reordered in the middle,
/// fields added and removed, tables replaced by scalars).
@Suite struct LuaAssignmentsTests {
  func applied(_ old: LuaValue, _ new: LuaValue) throws -> LuaValue {
    let statements = try LuaAssignments.statements(from: old, to: new, target: "s")
    let vm = try LuaVM()
    let body = statements.joined(separator: "\n")
    let source = """
      local s = \(try LuaAssignments.literal(old, indent: 0))
      \(body)
      return s
      """
    return try vm.evaluate(source).first ?? .nil
  }

  @Test func aFewChangesReadAsAPersonWritesThem() throws {
    let old: LuaValue = ["todos": [["id": 1, "done": false], ["id": 2, "done": false]], "n": 1]
    #expect(
      try LuaAssignments.statements(
        from: old,
        to: ["todos": [["id": 1, "done": true], ["id": 2, "done": false]], "n": 1], target: "s")
        == ["s.todos[1].done = true"])
    #expect(
      try LuaAssignments.statements(
        from: old, to: ["todos": [["id": 2, "done": false]], "n": 1], target: "s")
        == ["table.remove(s.todos, 1)"])
    #expect(
      try LuaAssignments.statements(
        from: old, to: ["todos": [["id": 1, "done": false], ["id": 2, "done": false], ["id": 3]],
          "n": 1], target: "s")
        == ["table.insert(s.todos, 3, { id = 3 })"])
    #expect(
      try LuaAssignments.statements(from: old, to: ["n": 2], target: "s")
        == ["s.n = 2", "s.todos = nil"])
  }

  /// Random values, random edits: the statements always rebuild the new value exactly.
  @Test(arguments: 1...8) func randomChangesAreRebuiltExactly(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    for _ in 0..<60 {
      let old = Self.value(&random, depth: 0)
      let new = Self.edited(old, &random, depth: 0)
      let rebuilt = try applied(["root": old], ["root": new])
      #expect(rebuilt == ["root": new], "seed \(seed): \(old) → \(new)")
    }
  }

  static func scalar(_ random: inout SplitMix64) -> LuaValue {
    switch random.below(5) {
    case 0: return .integer(random.below(5))
    case 1: return .number(Double(random.below(100)) / 4)
    case 2: return .boolean(random.below(2) == 0)
    case 3: return .string(LuaString("s\(random.below(4))\r\n"))
    default: return .string(LuaString(["a", "b", "not a name"][random.below(3)]))
    }
  }

  static func value(_ random: inout SplitMix64, depth: Int) -> LuaValue {
    if depth > 2 || random.below(3) == 0 { return scalar(&random) }
    if random.below(2) == 0 {
      return .table(LuaTable(array: (0..<random.below(5)).map { _ in value(&random, depth: depth + 1) }))
    }
    var table = LuaTable()
    for _ in 0..<random.below(4) {
      table[["a", "b", "c", "with space"][random.below(4)]] = value(&random, depth: depth + 1)
    }
    return .table(table)
  }

  /// `value` with some of its parts changed, removed, inserted or moved.
  static func edited(_ value: LuaValue, _ random: inout SplitMix64, depth: Int) -> LuaValue {
    guard case let .table(table) = value, random.below(6) != 0 else {
      return random.below(2) == 0 ? value : Self.value(&random, depth: depth)
    }
    if table.isSequence, !table.isEmpty {
      var elements = table.sequence
      switch random.below(4) {
      case 0: elements.remove(at: random.below(elements.count))
      case 1: elements.insert(Self.value(&random, depth: depth + 1), at: random.below(elements.count + 1))
      case 2: elements.reverse()
      default:
        let index = random.below(elements.count)
        elements[index] = edited(elements[index], &random, depth: depth + 1)
      }
      return .table(LuaTable(array: elements))
    }
    var edited = table
    for (key, element) in table.entries {
      switch random.below(4) {
      case 0: edited[key] = .nil
      case 1: edited[key] = Self.edited(element, &random, depth: depth + 1)
      default: break
      }
    }
    if random.below(2) == 0 { edited["new"] = Self.value(&random, depth: depth + 1) }
    return .table(edited)
  }
}
