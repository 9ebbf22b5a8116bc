extension LuaValue {
  /// The tables this value reaches at more than one place (as a value or as a key), by
  /// identity: empty for a tree. Each table is looked into once, so this is linear in the
  /// distinct tables, whatever the number of paths to them.
  public var sharedTables: Set<LuaTableIdentity> {
    guard case let .table(root) = self, !root.identity.isTree, root.holdsTables else { return [] }
    var seen: Set<LuaTableIdentity> = [root.identity]
    var shared: Set<LuaTableIdentity> = []
    var pending = [root]
    while let table = pending.popLast() {
      for (key, value) in table.entries {
        if case let .table(inner) = key { Self.meet(inner, &seen, &shared, &pending) }
        if case let .table(inner) = value { Self.meet(inner, &seen, &shared, &pending) }
      }
    }
    return shared
  }

  private static func meet(
    _ table: LuaTable, _ seen: inout Set<LuaTableIdentity>,
    _ shared: inout Set<LuaTableIdentity>, _ pending: inout [LuaTable]
  ) {
    if seen.insert(table.identity).inserted {
      pending.append(table)
    } else {
      shared.insert(table.identity)
    }
  }

  /// How many more tables a walk that copies every path (into JSON, into Swift types, which
  /// cannot share) writes than the value holds: 0 for a tree, 2^41 - 42 for `t = {t, t}` forty
  /// times over. Counts no further than `limit`; linear in the distinct tables.
  public func copiesOfSharedTables(limit: Int) -> Int {
    guard case let .table(root) = self, !root.identity.isTree, root.holdsTables else { return 0 }
    var expanded: [LuaTableIdentity: Int] = [:]
    let most = Int.max / 2  // a sum of two stays in range
    func count(_ table: LuaTable) -> Int {
      if let known = expanded[table.identity] { return known }
      var total = 1
      for (key, value) in table.entries {
        if case let .table(inner) = key { total = min(total + count(inner), most) }
        if case let .table(inner) = value { total = min(total + count(inner), most) }
      }
      expanded[table.identity] = total
      return total
    }
    return min(count(root) - expanded.count, limit)
  }

  /// How many copies of shared tables a walk that cannot share may make: past it, encoding
  /// into JSON or decoding into Swift types is refused.
  public static let maximumCopiesOfSharedTables = 100_000

  static var tooManyCopiesMessage: String {
    "it holds tables at so many places that writing each place out would copy them more than "
      + "\(maximumCopiesOfSharedTables) times (JSON and Swift types cannot share a table). To "
      + "fix, keep one copy of the shared table, or keep it as a LuaValue"
  }

  /// The value with every key and value that is not a table replaced by `transform` of it, and
  /// each table made once however many places hold it: the result shares as this value does.
  public func mappingScalars(_ transform: (LuaValue) -> LuaValue) -> LuaValue {
    var made: [LuaTableIdentity: LuaValue] = [:]
    func map(_ value: LuaValue) -> LuaValue {
      guard case let .table(table) = value else { return transform(value) }
      if let known = made[table.identity] { return known }
      var entries: [LuaValue: LuaValue] = Dictionary(minimumCapacity: table.count)
      for (key, element) in table.entries { entries[map(key)] = map(element) }
      let result = LuaValue.table(LuaTable(kind: table.kind, entries: entries))
      made[table.identity] = result
      return result
    }
    return map(self)
  }
}
