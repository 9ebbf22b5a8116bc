/// A snapshot of a Lua table, as a Swift value.
///
/// `kind` tells an array from a map. It matters for empty tables, which Lua cannot tell apart:
/// arrays made by Swift carry a marker metatable in Lua, so `[]` comes back as an empty array
/// and `[:]` as an empty map. Two tables are equal when they hold equal entries; the kind is
/// a hint for encoding and printing, not part of equality.
///
/// `identity` says which table this is (see `LuaTableIdentity`): a Lua table that a snapshot
/// reaches twice is one identity at both places, so every walk (printing, diffs, saving, the
/// push back into Lua) meets it once and keeps it shared. It is not part of equality either.
public struct LuaTable: Hashable, Sendable {
  /// Whether a table is an array (`array`, a list) or a map (`map`, any other table): how it is
  /// encoded and printed, and what an empty one stays when it goes into Lua and back.
  public enum Kind: Hashable, Sendable { case array, map }

  // Declared in this order so that `kind` lies after both words: a `LuaValue` stays 17 bytes
  // (its case is kept in the spare bits of the last byte, as for a `LuaString`).
  /// The entries, keyed as Lua keys them (a float key with an integral value is the integer key),
  /// with no `.nil` value: setting a field to `.nil` removes it.
  public private(set) var entries: [LuaValue: LuaValue]
  /// Which table this is: kept by every copy, new after every change.
  public private(set) var identity: LuaTableIdentity
  /// Whether the table is an array or a map. Setting it gives the table a new identity.
  public var kind: Kind {
    didSet { identity = identity.renewed(isTree: identity.isTree) }
  }

  /// Whether the Lua table this snapshot was read from had a metatable other than the array
  /// marker. The snapshot does not keep the metatable; this says that one was dropped, so that
  /// a value that must be plain data (an action an effect sends back) can be refused. (A bit of
  /// the identity: the table stays two words and a byte, so a `LuaValue` does not grow.)
  public internal(set) var hadMetatable: Bool {
    get { identity.hadMetatable }
    set { identity = identity.marked(hadMetatable: newValue) }
  }

  /// Whether the table is plain data, as a state is: nil, booleans, numbers, strings and tables
  /// of these, keyed by strings, numbers and booleans, with no metatable (but the array marker).
  /// A walk of the distinct tables below it (see `LuaValue.dataProblem`).
  public var isData: Bool { LuaValue.table(self).dataProblem == nil }

  /// A table of `entries`, of `kind`. Keys are normalized as Lua normalizes them (the key `2.0` is
  /// `2`), and an entry whose value is `.nil` is left out.
  ///
  /// ```swift
  /// let point = LuaTable(entries: ["x": 1, "y": 2])
  /// let none = LuaTable(kind: .array)  // an empty array, which stays one in Lua
  /// ```
  public init(kind: Kind = .map, entries: [LuaValue: LuaValue] = [:]) {
    var normalized: [LuaValue: LuaValue] = Dictionary(minimumCapacity: entries.count)
    for (key, value) in entries where value != .nil { normalized[key.normalizedKey] = value }
    self.init(kind: kind, normalizedEntries: normalized, isTree: !Self.holdsTables(normalized))
  }

  /// An array of `elements`, at the keys 1, 2, 3...: a `.nil` element leaves its key absent (a
  /// hole, where `sequence` stops).
  ///
  /// ```swift
  /// let tags = LuaTable(array: ["work", "home"])
  /// tags[1]  // "work"
  /// ```
  public init(array elements: [LuaValue]) {
    var entries: [LuaValue: LuaValue] = Dictionary(minimumCapacity: elements.count)
    for (offset, element) in elements.enumerated() where element != .nil {
      entries[.integer(offset + 1)] = element
    }
    self.init(kind: .array, normalizedEntries: entries, isTree: !Self.holdsTables(entries))
  }

  /// A new table of `entries` whose keys are already as Lua keeps them (no float key with an
  /// integral value) and whose values are not nil: what a snapshot reads from Lua. `isTree`:
  /// whether it is known that no table below it is reached twice.
  init(kind: Kind, normalizedEntries entries: [LuaValue: LuaValue], isTree: Bool = false) {
    self.entries = entries
    self.identity = .fresh(isTree: isTree)
    self.kind = kind
  }

  static func holdsTables(_ entries: [LuaValue: LuaValue]) -> Bool {
    entries.contains { entry in
      if case .table = entry.key { return true }
      if case .table = entry.value { return true }
      return false
    }
  }

  /// The number of entries, whatever their keys (`sequence.count` is the array part's length).
  public var count: Int { entries.count }
  /// Whether the table has no entries.
  public var isEmpty: Bool { entries.isEmpty }

  /// The value at `key`; `.nil` when absent. Setting `.nil` removes the entry, as in Lua.
  /// A float key with an integral value is the integer key, as in Lua.
  public subscript(key: LuaValue) -> LuaValue {
    get { entries[key.normalizedKey] ?? .nil }
    set {
      let key = key.normalizedKey
      if newValue == .nil { entries[key] = nil } else { entries[key] = newValue }
      // Still a tree if it was one and no table came in.
      var isTree = identity.isTree
      if case .table = key { isTree = false }
      if case .table = newValue { isTree = false }
      identity = identity.renewed(isTree: isTree)
    }
  }

  /// The field named `key`: `table["title"]` reads and writes `table[.string("title")]`.
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

  /// True when the keys are exactly 1...count (or the table is an empty array).
  public var isSequence: Bool {
    if entries.isEmpty { return kind == .array }
    return Self.keysAreSequence(entries)
  }

  /// Whether the keys of `entries`, not empty, are exactly 1...count.
  static func keysAreSequence(_ entries: [LuaValue: LuaValue]) -> Bool {
    for index in 1...entries.count where entries[.integer(index)] == nil { return false }
    return true
  }

  /// Whether a table is among the keys or values of this one: only then can a walk below it
  /// meet a table twice.
  public var holdsTables: Bool { Self.holdsTables(entries) }
}
