extension LuaValue {
  /// How many levels of tables this value holds at its deepest place, counting itself (0 for
  /// a value that is not a table); each table is measured once, however many places reach it,
  /// so this is linear in the distinct tables. Nil past `limit` levels (or for a table inside
  /// itself): the caller refuses it.
  public func height(limit: Int = LuaValue.maximumDepth) -> Int? {
    var known: [LuaTableIdentity: Int] = [:]
    var onPath: Set<LuaTableIdentity> = []
    func measure(_ value: LuaValue, depth: Int) -> Int? {
      guard case let .table(table) = value else { return 0 }
      guard depth <= limit, !onPath.contains(table.identity) else { return nil }
      if let height = known[table.identity] {
        return depth + height - 1 <= limit ? height : nil
      }
      onPath.insert(table.identity)
      var height = 1
      for (key, inner) in table.entries {
        guard let keyHeight = measure(key, depth: depth + 1),
          let innerHeight = measure(inner, depth: depth + 1)
        else { return nil }
        height = Swift.max(height, keyHeight + 1, innerHeight + 1)
      }
      onPath.remove(table.identity)
      known[table.identity] = height
      return height
    }
    return measure(self, depth: 1)
  }
}
