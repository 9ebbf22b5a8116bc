import LuaKit
import SeededRandom

/// Random Lua data for property tests of everything that keeps a value (saved files, sessions,
/// pushes, snapshots): every kind a data file holds, every byte in strings, tables shared at
/// several places and depth up to the limit.
public struct RandomLuaData {
  public var random: SplitMix64
  /// Tables made so far, any of which a later table may hold again.
  private var made: [LuaValue] = []

  public init(seed: UInt64) { random = SplitMix64(seed: seed) }

  /// A state: a table of `fields` random fields, some holding tables made before, one of them
  /// perhaps a chain of tables `deepest` levels deep counting the state itself.
  public mutating func state(fields: Int = 6, deepest: Int? = nil) -> LuaValue {
    made = []
    var table = LuaTable()
    for index in 0..<fields {
      table[key(index)] = value(depth: 4)
    }
    if let deepest { table["deep"] = chain(levels: deepest - 1) }
    return .table(table)
  }

  /// `levels` tables, each holding the next, the innermost a random scalar.
  public mutating func chain(levels: Int) -> LuaValue {
    var inner = LuaTable()
    inner["leaf"] = scalar()
    var value = LuaValue.table(inner)
    for _ in 1..<max(levels, 1) { value = ["next": value, "n": scalar()] }
    return value
  }

  public mutating func value(depth: Int) -> LuaValue {
    if depth <= 0 { return scalar() }
    switch random.below(10) {
    case 0...4: return scalar()
    case 5 where !made.isEmpty: return made[random.below(made.count)]  // shared
    case 5, 6:
      let table = LuaValue.table(
        LuaTable(array: (0..<random.below(5)).map { _ in value(depth: depth - 1) }))
      made.append(table)
      return table
    default:
      var table = LuaTable()
      for index in 0..<random.below(5) { table[key(index)] = value(depth: depth - 1) }
      let value = LuaValue.table(table)
      made.append(value)
      return value
    }
  }

  /// A key of any kind a data file keeps: a name, any bytes, an integer, a float, a boolean.
  public mutating func key(_ index: Int) -> LuaValue {
    switch random.below(6) {
    case 0: return .string(LuaString("field\(index)"))
    case 1: return .string(bytes())
    case 2: return .integer(integer())
    case 3: return .number(Double(random.below(1000)) + 0.5)
    case 4: return .boolean(random.below(2) == 0)
    default: return .string(LuaString(["end", "and", "", "a b", "1x", "_"][random.below(6)]))
    }
  }

  public mutating func scalar() -> LuaValue {
    switch random.below(5) {
    case 0: return .integer(integer())
    case 1: return .number(float())
    case 2, 3: return .string(bytes())
    default: return .boolean(random.below(2) == 0)
    }
  }

  public mutating func integer() -> Int {
    switch random.below(3) {
    case 0: return [Int.min, Int.max, 0, -1, 1, Int.min + 1][random.below(6)]
    case 1: return random.below(2001) - 1000
    default: return Int(bitPattern: UInt(random.next()))
    }
  }

  public mutating func float() -> Double {
    switch random.below(3) {
    case 0:
      return [.nan, .infinity, -.infinity, -0.0, 0.0, 5e-324, .greatestFiniteMagnitude, 0.1, 1e16,
        2.0, -1.5e-300][random.below(11)]
    default: return Double(bitPattern: random.next())  // any pattern, NaNs included
    }
  }

  /// Bytes: every byte value, UTF-8 text, or both mixed, short or long.
  public mutating func bytes() -> LuaString {
    let count = random.below(4) == 0 ? random.below(300) : random.below(12)
    switch random.below(3) {
    case 0: return LuaString(bytes: (0..<count).map { _ in UInt8(random.below(256)) })
    case 1:
      let text = String(
        (0..<count).map { _ in
          Character(UnicodeScalar(UInt32(random.below(0x800))) ?? "x")
        })
      return LuaString(text)
    default:
      return LuaString(bytes: (0..<count).map { _ in [0x00, 0x7F, 0x80, 0x9B, 0xC2, 0xFF, 0x22, 0x5C, 0x0A, 0x0D, 0x31][random.below(11)] })
    }
  }
}

extension LuaValue {
  /// Where the value's tables are shared, as numbers: each table met in a walk in key order is
  /// numbered the first time and its number listed every time. Two equal values share alike
  /// when their shapes are equal.
  public var sharingShape: [Int] {
    var numbers: [LuaTableIdentity: Int] = [:]
    var shape: [Int] = []
    func walk(_ value: LuaValue) {
      guard case let .table(table) = value else { return }
      if let number = numbers[table.identity] {
        shape.append(number)
        return
      }
      numbers[table.identity] = numbers.count + 1
      shape.append(numbers.count)
      for entry in table.sortedEntries { walk(entry.value) }
    }
    walk(self)
    return shape
  }
}
