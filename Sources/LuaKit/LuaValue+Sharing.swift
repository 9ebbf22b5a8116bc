extension LuaValue {
  /// The tables this value reaches at more than one place (as a value or as a key), by
  /// identity: empty for a tree. Each table is looked into once, so this is linear in the
  /// distinct tables, whatever the number of paths to them.
  public var sharedTables: Set<LuaTableIdentity> {
    guard case let .table(root) = self, root.holdsTables else { return [] }
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

  /// How many tables a walk that copies every path (into JSON, into a Swift type, which cannot
  /// share) would write, counting no further than `limit` (it stops there and says `limit`).
  /// Linear in the distinct tables.
  public func expandedTableCount(limit: Int) -> Int {
    guard case let .table(root) = self else { return 0 }
    var counts: [LuaTableIdentity: Int] = [:]
    func count(_ table: LuaTable) -> Int {
      if let known = counts[table.identity] { return known }
      var total = 1
      for (key, value) in table.entries {
        if case let .table(inner) = key { total = min(limit, total + count(inner)) }
        if case let .table(inner) = value { total = min(limit, total + count(inner)) }
        if total >= limit { break }
      }
      counts[table.identity] = total
      return total
    }
    return count(root)
  }
}
