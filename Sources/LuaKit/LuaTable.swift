/// A snapshot of a Lua table, as a Swift value.
///
/// `kind` tells an array from a map. It matters for empty tables, which Lua cannot tell apart:
/// arrays made by Swift carry a marker metatable in Lua, so `[]` comes back as an empty array
/// and `[:]` as an empty map. Two tables are equal when they hold equal entries; the kind is
/// a hint for encoding and printing, not part of the identity.
public struct LuaTable: Hashable, Sendable {
  public enum Kind: Hashable, Sendable { case array, map }

  public private(set) var entries: [LuaValue: LuaValue]
  public var kind: Kind

  public init(kind: Kind = .map, entries: [LuaValue: LuaValue] = [:]) {
    self.kind = kind
    self.entries = [:]
    for (key, value) in entries { self[key] = value }
  }

  public init(array elements: [LuaValue]) {
    self.kind = .array
    self.entries = Dictionary(minimumCapacity: elements.count)
    for (offset, element) in elements.enumerated() where element != .nil {
      entries[.integer(offset + 1)] = element
    }
  }

  public var count: Int { entries.count }
  public var isEmpty: Bool { entries.isEmpty }

  /// The value at `key`; `.nil` when absent. Setting `.nil` removes the entry, as in Lua.
  /// A float key with an integral value is the integer key, as in Lua.
  public subscript(key: LuaValue) -> LuaValue {
    get { entries[key.normalizedKey] ?? .nil }
    set {
      let key = key.normalizedKey
      if newValue == .nil { entries[key] = nil } else { entries[key] = newValue }
    }
  }

  public subscript(key: String) -> LuaValue {
    get { self[.string(LuaString(key))] }
    set { self[.string(LuaString(key))] = newValue }
  }

  /// `t[1], t[2], ...` up to the first absent index, like `ipairs`.
  public var sequence: [LuaValue] {
    var result: [LuaValue] = []
    var index = 1
    while let value = entries[.integer(index)] {
      result.append(value)
      index += 1
    }
    return result
  }

  /// Appends after the last element of the sequence, like `table.insert(t, v)`.
  public mutating func append(_ value: LuaValue) {
    self[.integer(sequence.count + 1)] = value
  }

  /// The entries in a stable order: integer keys ascending, then numbers, strings, booleans,
  /// and references, so printing and diffs never depend on hashing.
  public var sortedEntries: [(key: LuaValue, value: LuaValue)] {
    entries.sorted { LuaValue.keyOrder($0.key, $1.key) }.map { (key: $0.key, value: $0.value) }
  }

  public static func == (lhs: LuaTable, rhs: LuaTable) -> Bool { lhs.entries == rhs.entries }

  public func hash(into hasher: inout Hasher) { hasher.combine(entries) }

  /// True when the keys are exactly 1...count (or the table is an empty array).
  public var isSequence: Bool {
    if entries.isEmpty { return kind == .array }
    for index in 1...entries.count where entries[.integer(index)] == nil { return false }
    return true
  }
}
