/// Equality and hashing of tables, linear in the tables they hold whatever their sharing.
///
/// A table reached at many places is compared and hashed once: two snapshots of a state that
/// holds one table 2^40 times over (read separately, so of different identities) compare in
/// 41 steps, not 2^40. Identity is a shortcut, never the answer: two tables of different
/// identities that hold equal entries are equal, and hash alike.
extension LuaTable {
  /// Whether two tables hold equal entries. Neither `kind` nor `identity` counts: an empty array
  /// equals an empty map.
  ///
  /// ```swift
  /// LuaTable(entries: ["a": 1]) == LuaTable(entries: ["a": 1])  // true
  /// LuaTable(kind: .array) == LuaTable(kind: .map)  // true
  /// ```
  public static func == (lhs: LuaTable, rhs: LuaTable) -> Bool {
    if lhs.identity == rhs.identity { return true }
    var comparison = LuaTableComparison()
    return comparison.equal(lhs, rhs)
  }

  public func hash(into hasher: inout Hasher) {
    var hashing = LuaTableHashing()
    hasher.combine(hashing.hashValue(of: self))
  }
}

/// One comparison of two values: the pairs of tables it found equal below the first level, so
/// that a pair met again is not compared again.
struct LuaTableComparison {
  private struct Pair: Hashable {
    let left: LuaTableIdentity
    let right: LuaTableIdentity
  }

  /// Only pairs that held tables: one of scalars costs no more to compare than to look up.
  private var equalPairs: Set<Pair> = []

  mutating func equal(_ lhs: LuaTable, _ rhs: LuaTable) -> Bool {
    if lhs.identity == rhs.identity { return true }
    guard lhs.count == rhs.count else { return false }
    let pair = Pair(left: lhs.identity, right: rhs.identity)
    if !equalPairs.isEmpty, equalPairs.contains(pair) { return true }
    var heldTables = false
    for (key, value) in lhs.entries {
      guard let other = rhs.entries[key] else { return false }
      if case let .table(left) = value, case let .table(right) = other {
        heldTables = true
        guard equal(left, right) else { return false }
      } else if value != other {
        return false
      }
    }
    if heldTables { equalPairs.insert(pair) }
    return true
  }
}

/// One hashing of a value: the hash of each table that held tables, by identity, so that a table
/// met again is not hashed again. A table's hash depends on its entries only (in any order).
struct LuaTableHashing {
  private var known: [LuaTableIdentity: Int] = [:]

  mutating func hashValue(of table: LuaTable) -> Int {
    if let known = known[table.identity] { return known }
    var combined = 0
    var heldTables = false
    for (key, value) in table.entries {
      var entry = Hasher()
      combine(key, into: &entry, heldTables: &heldTables)
      combine(value, into: &entry, heldTables: &heldTables)
      combined ^= entry.finalize()  // the order of a dictionary's entries is not the table's
    }
    var hasher = Hasher()
    hasher.combine(table.count)
    hasher.combine(combined)
    let result = hasher.finalize()
    if heldTables { known[table.identity] = result }
    return result
  }

  private mutating func combine(
    _ value: LuaValue, into hasher: inout Hasher, heldTables: inout Bool
  ) {
    guard case let .table(table) = value else { return value.hash(into: &hasher) }
    heldTables = true
    hasher.combine(LuaValue.tableHashTag)
    hasher.combine(hashValue(of: table))
  }
}
