import CLua
import LuaSupport

extension LuaStack {
  /// Pushes a Swift-side value. Arrays get the VM's array marker so they stay arrays when empty.
  func push(_ value: LuaValue, in vm: LuaVM) throws(LuaError) {
    guard reserve(4) else { throw .conversion(path: "", message: "nesting too deep") }
    var tagged = false
    try pushReserved(value, in: vm, depth: 0, tag: nil, tagged: &tagged)
  }

  /// `push`, saying whether the value is a table with a string under the field `tag`: seen as
  /// its keys go by, so that the call need not look the field up again.
  func push(_ value: LuaValue, in vm: LuaVM, findingTag tag: LuaTagKey) throws(LuaError) -> Bool {
    guard reserve(4) else { throw .conversion(path: "", message: "nesting too deep") }
    var tagged = false
    try pushReserved(value, in: vm, depth: 0, tag: tag, tagged: &tagged)
    return tagged
  }

  /// `push`, once room is made: each table makes room for its key and value (the hot path of
  /// an action is a table of scalars, one check for it all).
  private func pushReserved(_ value: LuaValue, in vm: LuaVM, depth: Int) throws(LuaError) {
    var tagged = false
    try pushReserved(value, in: vm, depth: depth, tag: nil, tagged: &tagged)
  }

  /// With a `tag` (only for the value itself, not its nested tables), `tagged` is set when a
  /// key pushed is that name and its value a string.
  private func pushReserved(
    _ value: LuaValue, in vm: LuaVM, depth: Int, tag: LuaTagKey?, tagged: inout Bool
  ) throws(LuaError) {
    if pushScalar(value) { return }
    switch value {
    case .nil, .boolean, .integer, .number, .string: break  // pushed above
    case let .table(table):
      guard depth < LuaValue.maximumDepth else {  // as a snapshot stops: the same data both ways
        throw .conversion(path: "", message: LuaValue.tooDeepMessage)
      }
      let sequenceCount = table.kind == .array ? table.count : 0
      lua_createtable(
        L, Int32(clamping: sequenceCount), Int32(clamping: table.count - sequenceCount))
      guard reserve(3) else { throw .conversion(path: "", message: "nesting too deep") }
      // By index rather than `for (key, element) in`: the iterator retained and released the
      // dictionary's storage on every push. (Each key and value read is a copy: a retain and a
      // release of a string longer than LuaString keeps inline.)
      let entries = table.entries
      var index = entries.startIndex
      while index != entries.endIndex {
        let key = entries.keys[index], element = entries.values[index]
        entries.formIndex(after: &index)
        if case let .number(number) = key, number.isNaN {
          throw .conversion(path: "", message: "a table key cannot be NaN")
        }
        if case .nil = key {  // Lua would raise, and outside a protected call that aborts
          throw .conversion(path: "", message: "a table key cannot be nil")
        }
        let isTag: Bool
        if let tag, case let .string(name) = key, tag.isName(name) {
          lua_rawgeti(L, LK_REGISTRYINDEX, lua_Integer(tag.slot))
          isTag = true
        } else {
          if !pushScalar(key) { try pushReserved(key, in: vm, depth: depth + 1) }
          isTag = false
        }
        if !pushScalar(element) {  // the fields of an action are scalars: no call for them
          do throws(LuaError) { try pushReserved(element, in: vm, depth: depth + 1) } catch {
            throw error.under(LuaPath.component(key))
          }
        }
        if isTag, lua_type(L, -1) == LUA_TSTRING { tagged = true }
        lua_rawset(L, -3)
      }
      if table.kind == .array { vm.setArrayMarker(on: -1, L) }
    case let .function(reference), let .other(reference):
      try push(reference, in: vm)
    }
  }

  /// Pushes `value` if it is neither a table nor a reference, saying whether it did.
  @inline(__always)
  private func pushScalar(_ value: LuaValue) -> Bool {
    switch value {
    case .nil: lua_pushnil(L)
    case let .boolean(flag): lua_pushboolean(L, flag ? 1 : 0)
    case let .integer(integer): lua_pushinteger(L, lua_Integer(integer))
    case let .number(number): lua_pushnumber(L, number)
    case let .string(string): string.withUnsafeBytes { push(bytes: $0) }
    case .table, .function, .other: return false
    }
    return true
  }

  func push(_ reference: LuaReference, in vm: LuaVM) throws(LuaError) {
    guard reference.owner === vm.releaseQueue else {
      throw .conversion(
        path: "", message: "\(reference) belongs to another Lua VM and cannot be used here")
    }
    lua_rawgeti(L, LK_REGISTRYINDEX, lua_Integer(reference.slot))
  }

  /// A snapshot of the value at `index`: scalars and tables copied, the rest by reference.
  ///
  /// Bounded by what the VM holds, whatever the shape: a table or long string reached through
  /// several references is read once and shared (Swift's copy-on-write storage), so a state that
  /// holds one table 2^40 times over costs one copy of it, not 2^40. A table that contains
  /// itself, or tables nested deeper than `LuaValue.maximumDepth`, are errors naming the field.
  func value(at index: Int32, in vm: LuaVM) throws(LuaError) -> LuaValue {
    switch lua_type(L, index) {  // what most calls return: no bookkeeping to set up
    case LUA_TNIL, LUA_TNONE: return .nil
    case LUA_TBOOLEAN: return .boolean(lua_toboolean(L, index) != 0)
    default:
      var reading = SnapshotReading()
      return try value(at: absolute(index), in: vm, reading: &reading)
    }
  }

  /// What a snapshot has read so far: its path of tables (for cycles and depth) and what it
  /// read already (for sharing).
  private struct SnapshotReading {
    var visiting: [UnsafeRawPointer] = []
    var read: [UnsafeRawPointer: LuaValue] = [:]
  }

  /// Strings shorter than this are copied each time: sharing them would cost more than it saves.
  private static let sharedStringLength = 64

  private func value(
    at index: Int32, in vm: LuaVM, reading: inout SnapshotReading
  ) throws(LuaError) -> LuaValue {
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
      if let shared = reading.read[pointer] { return shared }
      let string = LuaValue.string(LuaString(bytes: Array(bytes)))
      reading.read[pointer] = string
      return string
    case LUA_TTABLE:
      // A reducer's state table handed back (in an action or an effect): read what it stands for.
      if lk_push_proxied_table(L, index) != 0 {
        defer { lk_pop(L, 1) }
        return try value(at: absolute(-1), in: vm, reading: &reading)
      }
      let identity = lua_topointer(L, index)!
      if let shared = reading.read[identity] { return shared }
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
      var table = LuaTable(kind: metatable == .arrayMarker ? .array : .map)
      table.hadMetatable = metatable == .other
      lua_pushnil(L)
      while lk_next(L, index) != 0 {
        if lua_type(L, -2) == LUA_TTABLE {  // equal-looking tables would collapse into one key
          throw .conversion(
            path: "", message: "a table key cannot be read (keys are strings, numbers, booleans)")
        }
        let key = try value(at: absolute(-2), in: vm, reading: &reading)
        do throws(LuaError) {
          table[key] = try value(at: absolute(-1), in: vm, reading: &reading)
        } catch {
          throw error.under(LuaPath.component(key))
        }
        lua_settop(L, -2)
      }
      if table.kind == .map, !table.isEmpty, table.isSequence { table.kind = .array }
      let snapshot = LuaValue.table(table)
      reading.read[identity] = snapshot
      return snapshot
    case LUA_TFUNCTION:
      return .function(vm.makeReference(at: index, L))
    default:
      return .other(vm.makeReference(at: index, L))
    }
  }
}
