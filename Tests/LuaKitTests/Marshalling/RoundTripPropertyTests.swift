import Foundation
import SeededRandom
import Testing

@testable import LuaKit

/// Random nested values go Swift -> Lua -> Swift and come back equal.
@Suite struct RoundTripPropertyTests {
  indirect enum Tree: Codable, Equatable {
    case int(Int)
    case double(Double)
    case string(String)
    case bool(Bool)
    case bytes(Data)
    case date(Date)
    case list([Tree])
    case map([String: Tree])
    case record(Record)
    case pair(Tree, Tree)
  }

  struct Record: Codable, Equatable {
    var id: Int
    var name: String?
    var children: [Tree]
    var scores: [Int: Double]
    var uuid: UUID
  }

  static let characters: [Character] = Array("aZ09 _-.\"'\\\n\t\u{0}éß中🍕✓{}[]=")

  struct Make {
    var random: SplitMix64

    mutating func int() -> Int {
      switch Int.random(in: 0..<4, using: &random) {
      case 0: return [Int.min, Int.max, 0, -1, 1][Int.random(in: 0..<5, using: &random)]
      case 1: return Int.random(in: -1000...1000, using: &random)
      default: return Int(bitPattern: UInt(random.next()))
      }
    }

    mutating func double() -> Double {
      while true {
        let value = Double(bitPattern: random.next())
        if !value.isNaN { return value }
      }
    }

    mutating func string() -> String {
      String((0..<Int.random(in: 0..<12, using: &random)).map { _ in
        RoundTripPropertyTests.characters.randomElement(using: &random)!
      })
    }

    mutating func tree(depth: Int) -> Tree {
      let leaf = depth <= 0
      switch Int.random(in: 0..<(leaf ? 6 : 10), using: &random) {
      case 0: return .int(int())
      case 1: return .double(double())
      case 2: return .string(string())
      case 3: return .bool(Bool.random(using: &random))
      case 4: return .bytes(Data((0..<Int.random(in: 0..<6, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }))
      case 5: return .date(Date(timeIntervalSince1970: Double(Int.random(in: -1_000_000_000...4_000_000_000, using: &random)) / 4))
      case 6: return .list((0..<Int.random(in: 0..<4, using: &random)).map { _ in tree(depth: depth - 1) })
      case 7:
        var map: [String: Tree] = [:]
        for _ in 0..<Int.random(in: 0..<4, using: &random) { map[string()] = tree(depth: depth - 1) }
        return .map(map)
      case 8:
        var scores: [Int: Double] = [:]
        for _ in 0..<Int.random(in: 0..<3, using: &random) { scores[int()] = double() }
        return .record(Record(
          id: int(), name: Bool.random(using: &random) ? string() : nil,
          children: (0..<Int.random(in: 0..<3, using: &random)).map { _ in tree(depth: depth - 1) },
          scores: scores, uuid: UUID(uuid: (UInt8(depth), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, UInt8(truncatingIfNeeded: int())))))
      default: return .pair(tree(depth: depth - 1), tree(depth: depth - 1))
      }
    }

    mutating func luaValue(depth: Int) -> LuaValue {
      switch Int.random(in: 0..<(depth <= 0 ? 5 : 7), using: &random) {
      case 0: return .integer(int())
      case 1: return .number(double())
      case 2: return .string(LuaString(bytes: (0..<Int.random(in: 0..<8, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }))
      case 3: return .boolean(Bool.random(using: &random))
      case 4: return .nil
      case 5: return .table(LuaTable(array: (0..<Int.random(in: 0..<4, using: &random)).map { _ in luaValue(depth: depth - 1) }.filter { $0 != .nil }))
      default:
        var table = LuaTable()
        for _ in 0..<Int.random(in: 0..<4, using: &random) {
          let key: LuaValue = Bool.random(using: &random) ? .integer(int()) : .string(LuaString(string()))
          table[key] = luaValue(depth: depth - 1)
        }
        return .table(table)
      }
    }
  }

  @Test func tenThousandRandomCodableValuesRoundTrip() throws {
    let vm = try LuaVM()
    var make = Make(random: SplitMix64(seed: 20_261_121))
    for iteration in 0..<10_000 {
      let value = make.tree(depth: 4)
      let reference = try LuaEncoder().encode(value, in: vm, rootName: "value")
      let decoded = try LuaDecoder().decode(Tree.self, from: reference, in: vm)
      #expect(decoded == value, "iteration \(iteration)")
      if decoded != value { return }
    }
  }

  @Test func tenThousandRandomLuaValuesRoundTrip() throws {
    let vm = try LuaVM()
    var make = Make(random: SplitMix64(seed: 42))
    for iteration in 0..<10_000 {
      let value = make.luaValue(depth: 4)
      let back = try vm.value(of: vm.reference(to: value))
      #expect(back == value, "iteration \(iteration)")
      if back != value { return }
    }
  }
}
