import CLua
import LuaSupport

extension LuaVM {
  /// Inside an open transaction: where the state at `root` (a handle on it or its proxy) is now
  /// different from what it was when the transaction began, as `LuaValue.differences` would
  /// say it of a snapshot before and one after, but with no snapshot: the old contents come
  /// from the journal, and only the tables that changed, or hold one that did, are read.
  /// `rootName` starts the path of a conversion error.
  public func transactionDifferences(
    root: LuaReference, rootName: String = "state"
  ) throws(LuaError) -> [LuaDifference] {
    guard lk_transaction_wrote(L) != 0 else { return [] }
    return try stack.guarded { () throws(LuaError) -> [LuaDifference] in
      try stack.push(root, in: self)
      let status = lk_transaction_changes(L, -1)
      guard status == LUA_OK else { throw takeError(status: status) }
      let found = stack.absolute(-1)
      for part in 1...3 { lua_rawgeti(L, found, lua_Integer(part)) }
      let source = LuaTransactionSource(vm: self, L: L, found: found + 1)
      // The root's real table: the handle may be on it or on its proxy.
      let address = lua_topointer(L, lk_push_proxied_table(L, found - 1) != 0 ? -1 : found - 1)!
      var walk = LuaDifferenceWalk(source: source)
      do throws(LuaError) {
        try walk.collect(
          .table(address, before: true), .table(address, before: false), path: "", depth: 0)
      } catch {
        throw error.rooted(at: rootName)
      }
      return walk.found
    }
  }
}

extension LuaVM {
  /// Whether the open transaction changed the field `key` of the state at `root` (a proxy or
  /// its table): the field itself, or any table it reaches now; with `key` nil, anything of the
  /// state. A write that left the value there when the transaction began (nil over nil, the same
  /// number, a value written back) changes nothing. Costs a look at the journal, and a walk over
  /// what the field reaches only when a table below the root changed. True when it could not
  /// tell.
  public func transactionChanged(field key: LuaValue, of root: LuaReference) -> Bool {
    guard lk_transaction_wrote(L) != 0 else { return false }
    return stack.guarded { () -> Bool in
      do throws(LuaError) {
        try stack.push(root, in: self)
        try stack.push(key, in: self)
      } catch {
        return true
      }
      return lk_transaction_changed_field(L, -2, -1) != 0
    }
  }
}

/// A state's tables as they were before the open transaction and are now, read through what
/// `lk_transaction_changes` found: each table by its address, the old contents as its contents
/// with the journal's first old values laid over them.
///
/// Linear in the tables it reads whatever their sharing: each pair is compared once (a pair met
/// inside itself, in a state that holds a cycle, counts as equal while it is compared), each old
/// table's contents made into a value once, and the snapshots of what is there now share one
/// reading, so a table shared by several differences is read, and is one identity, once.
private struct LuaTransactionSource: LuaDifferenceSource {
  enum Node {
    case value(LuaValue)
    /// A table of the state; `before`: as it was when the transaction began.
    case table(UnsafeRawPointer, before: Bool)
  }

  struct TableKey: Hashable {
    let address: UnsafeRawPointer
    let before: Bool
  }

  /// What the walk learned so far (the source is read through non-mutating calls).
  final class Memory {
    var equal: [Pair: Bool] = [:]
    var oldValues: [UnsafeRawPointer: LuaValue] = [:]
    var building: Set<UnsafeRawPointer> = []
    var reading = LuaSnapshotReading()
  }

  struct Pair: Hashable {
    let old: TableKey
    let new: TableKey
  }

  unowned(unsafe) let vm: LuaVM
  let L: OpaquePointer
  /// Where the three tables of `lk_transaction_changes` are on the stack, one after another:
  /// the old values, the tables by address (the root, and those the walk read, kept as it reads
  /// them), the changed ones.
  let found: Int32
  let memory = Memory()

  var nothing: Node { .value(.nil) }
  private var stack: LuaStack { LuaStack(L) }

  func isTable(_ node: Node) -> Bool {
    if case .table = node { true } else { false }
  }

  func tableKey(_ node: Node) -> TableKey? {
    if case let .table(address, before) = node {
      TableKey(address: address, before: before)
    } else {
      nil
    }
  }

  func isUnchanged(_ old: Node, _ new: Node) -> Bool {
    guard case let .table(oldAddress, oldBefore) = old,
      case let .table(newAddress, newBefore) = new,
      oldAddress == newAddress
    else { return false }
    return oldBefore == newBefore || !changed(oldAddress)
  }

  func isEqual(_ old: Node, _ new: Node) throws(LuaError) -> Bool {
    try isEqual(old, new, depth: 0)
  }

  private func isEqual(_ old: Node, _ new: Node, depth: Int) throws(LuaError) -> Bool {
    switch (old, new) {
    case let (.value(a), .value(b)): return a == b
    case (.table, .table):
      if isUnchanged(old, new) { return true }
      guard depth < LuaValue.maximumDepth else { return false }
      let pair = Pair(old: tableKey(old)!, new: tableKey(new)!)
      if let known = memory.equal[pair] { return known }
      memory.equal[pair] = true  // while it is compared
      let answer = try isEqualTables(old, new, depth: depth)
      memory.equal[pair] = answer
      return answer
    default: return false
    }
  }

  private func isEqualTables(_ old: Node, _ new: Node, depth: Int) throws(LuaError) -> Bool {
    let (a, b) = (try table(old), try table(new))
    guard a.sequence.count == b.sequence.count, a.others.count == b.others.count else {
      return false
    }
    for (element, other) in zip(a.sequence, b.sequence) {
      guard try isEqual(element, other, depth: depth + 1) else { return false }
    }
    for (key, element) in a.others {
      guard let other = b.others[key], try isEqual(element, other, depth: depth + 1) else {
        return false
      }
    }
    return true
  }

  func table(_ node: Node) throws(LuaError) -> LuaDifferenceTable<Node> {
    guard case let .table(address, before) = node else {
      return LuaDifferenceTable(sequence: [], others: [:], isArray: false)
    }
    return try stack.guarded { () throws(LuaError) -> LuaDifferenceTable<Node> in
      let table = try push(address)
      var sequence: [Node] = []
      let length = lua_rawlen(L, table)
      sequence.reserveCapacity(Int(length))
      for index in 0..<length {
        defer { lua_settop(L, -2) }
        if lua_rawgeti(L, table, lua_Integer(index + 1)) == LUA_TNIL { break }
        sequence.append(try entry(at: -1, before: before, in: .integer(Int(index + 1))))
      }
      var others: [LuaValue: Node] = [:]
      lua_pushnil(L)
      while lk_next(L, table) != 0 {
        defer { lua_settop(L, -2) }
        if lua_isinteger(L, -2) != 0, case let index = lua_tointegerx(L, -2, nil),
          index >= 1, index <= sequence.count
        {
          continue  // read with the sequence
        }
        let key = try stack.value(at: -2, in: vm)
        others[key] = try entry(at: -1, before: before, in: key)
      }
      var read = LuaDifferenceTable(
        sequence: sequence, others: others, isArray: vm.hasArrayMarker(at: table, L))
      if before, lua_rawgetp(L, found, address) == LUA_TTABLE {
        try layOldValues(at: stack.absolute(-1), over: &read)
      }
      return read
    }
  }

  /// Lays the old values of a table (`lk_transaction_changes`'s, at `index`) over what it holds
  /// now, keeping the sequence the values at 1, 2, ... up to the first key missing.
  private func layOldValues(
    at index: Int32, over table: inout LuaDifferenceTable<Node>
  ) throws(LuaError) {
    var firstRemoved = Int.max
    var removed: Set<Int> = []
    lua_pushnil(L)
    while lua_next(L, index) != 0 {
      defer { lua_settop(L, -2) }
      let key = try stack.value(at: -2, in: vm)
      let wasNil = lk_changes_is_nil_marker(L, -1) != 0
      let old = wasNil ? nil : try entry(at: -1, before: true, in: key)
      if case let .integer(position) = key, position >= 1, position <= table.sequence.count {
        if let old {
          table.sequence[position - 1] = old
        } else {
          removed.insert(position)
          firstRemoved = min(firstRemoved, position)
        }
      } else {
        table.others[key] = old
      }
    }
    if firstRemoved != .max {  // the sequence ends before it; the rest are other entries
      for position in (firstRemoved + 1)...max(firstRemoved + 1, table.sequence.count)
      where position <= table.sequence.count && !removed.contains(position) {
        table.others[.integer(position)] = table.sequence[position - 1]
      }
      table.sequence.removeSubrange((firstRemoved - 1)...)
    }
    while let next = table.others.removeValue(forKey: .integer(table.sequence.count + 1)) {
      table.sequence.append(next)
    }
  }

  /// For a table the transaction did not write, the fields `lk_transaction_changes` listed as
  /// holding a changed table. Nil for one it wrote, or a key that is no value (the whole reading
  /// then says where).
  func changedFields(_ old: Node, _ new: Node) throws(LuaError) -> LuaChangedFields<Node>? {
    guard case let .table(address, before: true) = old,
      case .table(address, before: false) = new
    else { return nil }
    return try stack.guarded { () throws(LuaError) -> LuaChangedFields<Node>? in
      guard lua_rawgetp(L, found + 2, address) == LUA_TTABLE else { return nil }
      let keys = stack.absolute(-1)
      let table = try push(address)
      var fields: [(key: LuaValue, old: Node, new: Node)] = []
      for index in 0..<lua_rawlen(L, keys) {
        defer { lua_settop(L, table) }
        lua_rawgeti(L, keys, lua_Integer(index + 1))
        guard let key = try? stack.value(at: -1, in: vm),
          lua_rawget(L, table) == LUA_TTABLE
        else { return nil }
        let element = lua_topointer(L, -1)!
        keep(at: -1)
        fields.append((key, .table(element, before: true), .table(element, before: false)))
      }
      let length: Int? =
        lua_getfield(L, keys, "n") == LUA_TNUMBER ? Int(lua_tointegerx(L, -1, nil)) : nil
      return LuaChangedFields(sequenceLength: length, fields: fields)
    }
  }

  func value(_ node: Node) throws(LuaError) -> LuaValue {
    try value(node, depth: 0)
  }

  private func value(_ node: Node, depth: Int) throws(LuaError) -> LuaValue {
    guard case let .table(address, before) = node else {
      if case let .value(value) = node { return value }
      return .nil
    }
    if !before || !changed(address) {  // as it is now: a snapshot, sharing one reading
      return try stack.guarded { () throws(LuaError) -> LuaValue in
        try stack.value(at: try push(address), in: vm, sharing: &memory.reading)
      }
    }
    if let known = memory.oldValues[address] { return known }
    guard depth < LuaValue.maximumDepth else {
      throw .conversion(path: "", message: LuaValue.tooDeepMessage)
    }
    guard memory.building.insert(address).inserted else {
      throw .conversion(path: "", message: "cycle: the table contains itself")
    }
    defer { memory.building.remove(address) }
    let old = try table(node)
    var entries: [LuaValue: LuaValue] = [:]
    for key in old.keys {
      guard let element = old[key] else { continue }
      do throws(LuaError) {
        let value = try value(element, depth: depth + 1)
        if value != .nil { entries[key] = value }
      } catch {
        throw error.under(LuaPath.component(key))
      }
    }
    let isArray = old.isArray || (!entries.isEmpty && LuaTable.keysAreSequence(entries))
    let value = LuaValue.table(LuaTable(kind: isArray ? .array : .map, normalizedEntries: entries))
    memory.oldValues[address] = value
    return value
  }

  func failure(_ error: LuaError, at path: String) -> LuaError {
    error.under(path.isEmpty || path.hasPrefix("[") ? path : "." + path)
  }

  /// Pushes the table at `address`, returning its index.
  private func push(_ address: UnsafeRawPointer) throws(LuaError) -> Int32 {
    guard stack.reserve(6), lua_rawgetp(L, found + 1, address) == LUA_TTABLE else {
      throw .conversion(path: "", message: LuaValue.tooDeepMessage)
    }
    return stack.absolute(-1)
  }

  private func changed(_ address: UnsafeRawPointer) -> Bool {
    defer { lua_settop(L, -2) }
    return lua_rawgetp(L, found + 2, address) != LUA_TNIL
  }

  /// Keeps the table at `index` by its address, for `push`: the walk reads a table only from
  /// one it read, or the root.
  private func keep(at index: Int32) {
    lua_pushvalue(L, index)
    lua_rawsetp(L, found + 1, lua_topointer(L, -1))
  }

  private func entry(at index: Int32, before: Bool, in key: LuaValue) throws(LuaError) -> Node {
    if lua_type(L, index) == LUA_TTABLE {
      keep(at: index)
      return .table(lua_topointer(L, index)!, before: before)
    }
    do throws(LuaError) { return .value(try stack.value(at: index, in: vm)) } catch {
      throw error.under(LuaPath.component(key))
    }
  }
}
