extension LuaValue {
  /// About how many bytes Swift holds for this value: its strings' bytes, and a few words per
  /// value and per table entry. Each table is counted once, however many places reach it (a
  /// shared table is held once), so this is linear in the distinct tables.
  public var heldBytes: Int {
    var seen: Set<LuaTableIdentity> = []
    var pending: [LuaTable] = []
    var total = 0
    func add(_ value: LuaValue) {
      total += MemoryLayout<LuaValue>.stride
      switch value {
      case let .string(string): total += string.count
      case let .table(table):
        if seen.insert(table.identity).inserted { pending.append(table) }
      default: break
      }
    }
    add(self)
    while let table = pending.popLast() {
      for (key, value) in table.entries {
        add(key)
        add(value)
      }
    }
    return total
  }
}
