import CLua
import LuaSupport

extension LuaStack {
  /// A snapshot of the value at `index`: scalars and tables copied, the rest by reference.
  ///
  /// Bounded by what the VM holds, whatever the shape: a table or long string reached through
  /// several references is read once and shared, so a state that holds one table 2^40 times
  /// over costs one copy of it, not 2^40, and the table is one `LuaTableIdentity` wherever it
  /// appears. A table that contains itself, or tables nested deeper than
  /// `LuaValue.maximumDepth` on any path (a shared table counts at its deepest place), are errors
  /// naming the field.
  func value(at index: Int32, in vm: LuaVM) throws(LuaError) -> LuaValue {
    switch lua_type(L, index) {  // what most calls return: no bookkeeping to set up
    case LUA_TNIL, LUA_TNONE: return .nil
    case LUA_TBOOLEAN: return .boolean(lua_toboolean(L, index) != 0)
    default:
      var reading = LuaSnapshotReading()
      return try readingAgainInKeyOrder(at: absolute(index), in: vm, reading: &reading)
    }
  }

  /// The snapshot; if it fails, read again with each table's fields in key order, so that the
  /// error names the first bad place in that order: in a hash part's order (each VM's string
  /// seed) a table at two places inside itself was named at one or the other from one run to
  /// the next. Only a failure pays for the second reading.
  private func readingAgainInKeyOrder(
    at index: Int32, in vm: LuaVM, reading: inout LuaSnapshotReading
  ) throws(LuaError) -> LuaValue {
    let top = lua_gettop(L)
    do throws(LuaError) {
      return try value(at: index, in: vm, reading: &reading)
    } catch {
      guard case .conversion = error else { throw error }
      lua_settop(L, top)
      var again = LuaSnapshotReading()
      again.inKeyOrder = true
      do throws(LuaError) {
        _ = try value(at: index, in: vm, reading: &again)
      } catch let ordered {
        lua_settop(L, top)
        throw ordered
      }
      throw error
    }
  }

  /// A snapshot of the value at `index` that shares what `reading` read before: several
  /// snapshots of one unchanged Lua value (the parts of a diff) read each table once, and a
  /// table they share is one identity in all of them.
  func value(
    at index: Int32, in vm: LuaVM, sharing reading: inout LuaSnapshotReading
  ) throws(LuaError) -> LuaValue {
    try readingAgainInKeyOrder(at: absolute(index), in: vm, reading: &reading)
  }
}

/// What a snapshot has read so far: its path of tables (for cycles and depth) and what it read
/// already (for sharing): long strings, and tables with their height (1 for a table of
/// scalars, one more than its tallest table else).
struct LuaSnapshotReading {
  var visiting: [UnsafeRawPointer] = []
  var strings: [UnsafeRawPointer: LuaValue] = [:]
  var tables: [UnsafeRawPointer: (value: LuaValue, height: Int)] = [:]
  /// The height of the value read last: 0 for anything but a table.
  var height = 0
  /// How many times a table read already was met again: a table during whose reading this did
  /// not move is a tree.
  var tablesMetAgain = 0
  /// Each table's fields read in key order (`LuaValue.keyOrder`), not Lua's: a reading that
  /// failed is made again so, for an error that names the same place in every run.
  var inKeyOrder = false
}

extension LuaStack {
  /// Strings shorter than this are copied each time: sharing them would cost more than it saves.
  private static let sharedStringLength = 64

  private func value(
    at index: Int32, in vm: LuaVM, reading: inout LuaSnapshotReading
  ) throws(LuaError) -> LuaValue {
    reading.height = 0
    switch lua_type(L, index) {
    case LUA_TNIL, LUA_TNONE: return .nil
    case LUA_TBOOLEAN: return .boolean(lua_toboolean(L, index) != 0)
    case LUA_TNUMBER:
      if lua_isinteger(L, index) != 0 { return .integer(Int(lua_tointegerx(L, index, nil))) }
      return .number(lua_tonumberx(L, index, nil))
    case LUA_TSTRING:
      var length = 0
      let pointer = UnsafeRawPointer(lua_tolstring(L, index, &length)!)
      let bytes = UnsafeRawBufferPointer(start: pointer, count: length)
      guard length >= Self.sharedStringLength else { return .string(LuaString(copying: bytes)) }
      if let shared = reading.strings[pointer] { return shared }
      let string = LuaValue.string(LuaString(bytes: Array(bytes)))
      reading.strings[pointer] = string
      return string
    case LUA_TTABLE:
      // A reducer's state table handed back (in an action or an effect): read what it stands for.
      if lk_push_proxied_table(L, index) != 0 {
        defer { lk_pop(L, 1) }
        return try value(at: absolute(-1), in: vm, reading: &reading)
      }
      let identity = lua_topointer(L, index)!
      if let shared = reading.tables[identity] {
        // Its deepest table, at this place: the same count as if it were read again here.
        guard reading.visiting.count + shared.height <= LuaValue.maximumDepth else {
          throw .conversion(path: "", message: LuaValue.tooDeepMessage)
        }
        reading.height = shared.height
        reading.tablesMetAgain += 1
        return shared.value
      }
      if reading.visiting.contains(identity) {
        throw .conversion(path: "", message: "cycle: the table contains itself")
      }
      guard reading.visiting.count < LuaValue.maximumDepth else {
        throw .conversion(path: "", message: LuaValue.tooDeepMessage)
      }
      guard reserve(4) else { throw .conversion(path: "", message: "nesting too deep") }
      reading.visiting.append(identity)
      defer { reading.visiting.removeLast() }
      let metatable = vm.metatable(at: index, L)
      let metAgainBefore = reading.tablesMetAgain
      // Keys as Lua keeps them (an integral float key is an integer) and never nil values: the
      // entries go into the table as they are read, and it gets its identity once, at the end.
      var entries: [LuaValue: LuaValue] = [:]
      var height = 1
      if reading.inKeyOrder {
        try readInKeyOrder(at: index, in: vm, reading: &reading, into: &entries, height: &height)
      }
      lua_pushnil(L)
      while !reading.inKeyOrder, lk_next(L, index) != 0 {
        if lua_type(L, -2) == LUA_TTABLE {  // equal-looking tables would collapse into one key
          throw .conversion(path: "", message: Self.tableKeyMessage)
        }
        let key = try value(at: absolute(-2), in: vm, reading: &reading)
        try readField(key, in: vm, reading: &reading, into: &entries, height: &height)
      }
      let isArray =
        metatable == .arrayMarker || (!entries.isEmpty && LuaTable.keysAreSequence(entries))
      var table = LuaTable(
        kind: isArray ? .array : .map, normalizedEntries: entries,
        isTree: reading.tablesMetAgain == metAgainBefore)
      table.hadMetatable = metatable == .other
      let snapshot = LuaValue.table(table)
      reading.tables[identity] = (snapshot, height)
      reading.height = height
      return snapshot
    case LUA_TFUNCTION:
      return .function(vm.makeReference(at: index, L))
    default:
      return .other(vm.makeReference(at: index, L))
    }
  }

  /// The fields of the table at `index` read as `value` reads them, in key order: the keys
  /// first, then each value, and a table key (which no order places) last.
  private func readInKeyOrder(
    at index: Int32, in vm: LuaVM, reading: inout LuaSnapshotReading,
    into entries: inout [LuaValue: LuaValue], height: inout Int
  ) throws(LuaError) {
    var keys: [LuaValue] = []
    var tableKey = false
    lua_pushnil(L)
    while lk_next(L, index) != 0 {
      if lua_type(L, -2) == LUA_TTABLE {
        tableKey = true
      } else {
        keys.append(try value(at: absolute(-2), in: vm, reading: &reading))
      }
      lua_settop(L, -2)
    }
    keys.sort(by: LuaValue.keyOrder)
    for key in keys {
      try push(key, in: vm)
      lua_rawget(L, index)
      try readField(key, in: vm, reading: &reading, into: &entries, height: &height)
    }
    if tableKey { throw .conversion(path: "", message: Self.tableKeyMessage) }
  }

  private static let tableKeyMessage =
    "a table key cannot be read (keys are strings, numbers, booleans)"

  /// Reads the value on top into `entries[key]` and pops it, counting its height; an error
  /// says under which key.
  @inline(__always)
  private func readField(
    _ key: LuaValue, in vm: LuaVM, reading: inout LuaSnapshotReading,
    into entries: inout [LuaValue: LuaValue], height: inout Int
  ) throws(LuaError) {
    do throws(LuaError) {
      entries[key] = try value(at: absolute(-1), in: vm, reading: &reading)
      height = max(height, reading.height + 1)
    } catch {
      throw error.under(LuaPath.component(key))
    }
    lua_settop(L, -2)
  }
}
