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

  /// Whether the Lua table this snapshot was read from had a metatable other than the array
  /// marker. The snapshot does not keep the metatable; this says that one was dropped, so that
  /// a value that must be plain data (an action an effect sends back) can be refused.
  public internal(set) var hadMetatable = false

  /// How many entries are not data (a function, userdata or coroutine as their key or value, or
  /// a value that is a table which is not data), kept as entries change: `isData` then needs no
  /// walk, and a walk looking for what is not data goes down only where something is. (32 bits,
  /// beside the two flags: the table stays 16 bytes, so a `LuaValue` does not grow.)
  private var entriesNotData: Int32 = 0

  /// Whether the table is plain data, as a state is: nil, booleans, numbers, strings and tables
  /// of these, keyed by strings, numbers and booleans, with no metatable (but the array marker).
  /// Known at once, whatever the size and however often a table is shared inside.
  public var isData: Bool { entriesNotData == 0 && !hadMetatable }

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
      if Self.isNotData(element) { entriesNotData += 1 }
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
      let old: LuaValue?
      if newValue == .nil {
        old = entries.removeValue(forKey: key)
      } else {
        old = entries.updateValue(newValue, forKey: key)
        if Self.isNotData(key) || Self.isNotData(newValue) { entriesNotData += 1 }
      }
      if let old, Self.isNotData(key) || Self.isNotData(old) { entriesNotData -= 1 }
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

  /// Whether `value` (a key or a value) keeps its table from being plain data.
  @inline(__always)
  static func isNotData(_ value: LuaValue) -> Bool {
    switch value {
    case .nil, .boolean, .integer, .number, .string: false
    case let .table(table): !table.isData
    case .function, .other: true
    }
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
