import CLua
import LuaSupport

extension LuaStack {
  /// Pushes a Swift-side value. Arrays get the VM's array marker so they stay arrays when empty.
  func push(_ value: LuaValue, in vm: LuaVM) throws(LuaError) {
    guard reserve(4) else { throw .conversion(path: "", message: "nesting too deep") }
    try pushReserved(value, in: vm)
  }

  /// `push`, once room is made: each table makes room for its key and value (the hot path of
  /// an action is a table of scalars, one check for it all).
  private func pushReserved(_ value: LuaValue, in vm: LuaVM) throws(LuaError) {
    switch value {
    case .nil: lua_pushnil(L)
    case let .boolean(flag): lua_pushboolean(L, flag ? 1 : 0)
    case let .integer(integer): lua_pushinteger(L, lua_Integer(integer))
    case let .number(number): lua_pushnumber(L, number)
    case let .string(string): string.bytes.withUnsafeBytes { push(bytes: $0) }
    case let .table(table):
      let sequenceCount = table.kind == .array ? table.count : 0
      lua_createtable(L, Int32(clamping: sequenceCount), Int32(clamping: table.count - sequenceCount))
      guard reserve(3) else { throw .conversion(path: "", message: "nesting too deep") }
      for (key, element) in table.entries {
        if case let .number(number) = key, number.isNaN {
          throw .conversion(path: "", message: "a table key cannot be NaN")
        }
        try pushReserved(key, in: vm)
        do throws(LuaError) { try pushReserved(element, in: vm) } catch {
          throw error.under(LuaPath.component(key))
        }
        lua_rawset(L, -3)
      }
      if table.kind == .array { vm.setArrayMarker(on: -1, L) }
    case let .function(reference), let .other(reference):
      try push(reference, in: vm)
    }
  }

  func push(_ reference: LuaReference, in vm: LuaVM) throws(LuaError) {
    guard reference.owner === vm.releaseQueue else {
      throw .conversion(
        path: "", message: "\(reference) belongs to another Lua VM and cannot be used here")
    }
    lua_rawgeti(L, LK_REGISTRYINDEX, lua_Integer(reference.slot))
  }

  /// A snapshot of the value at `index`: scalars and tables copied, the rest by reference.
  /// A table that contains itself is an error.
  func value(at index: Int32, in vm: LuaVM) throws(LuaError) -> LuaValue {
    var visiting: [UnsafeRawPointer] = []
    return try value(at: absolute(index), in: vm, visiting: &visiting)
  }

  private func value(
    at index: Int32, in vm: LuaVM, visiting: inout [UnsafeRawPointer]
  ) throws(LuaError) -> LuaValue {
    switch lua_type(L, index) {
    case LUA_TNIL, LUA_TNONE: return .nil
    case LUA_TBOOLEAN: return .boolean(lua_toboolean(L, index) != 0)
    case LUA_TNUMBER:
      if lua_isinteger(L, index) != 0 { return .integer(Int(lua_tointegerx(L, index, nil))) }
      return .number(lua_tonumberx(L, index, nil))
    case LUA_TSTRING:
      return .string(LuaString(bytes: withBytes(at: index) { Array($0) }))
    case LUA_TTABLE:
      // A reducer's state table handed back (in an action or an effect): read what it stands for.
      if lk_push_proxied_table(L, index) != 0 {
        defer { lk_pop(L, 1) }
        return try value(at: absolute(-1), in: vm, visiting: &visiting)
      }
      let identity = lua_topointer(L, index)!
      if visiting.contains(identity) {
        throw .conversion(path: "", message: "cycle: the table contains itself")
      }
      guard reserve(4) else { throw .conversion(path: "", message: "nesting too deep") }
      visiting.append(identity)
      defer { visiting.removeLast() }
      var table = LuaTable(kind: vm.hasArrayMarker(at: index, L) ? .array : .map)
      lua_pushnil(L)
      while lk_next(L, index) != 0 {
        let key = try value(at: absolute(-2), in: vm, visiting: &visiting)
        do throws(LuaError) {
          table[key] = try value(at: absolute(-1), in: vm, visiting: &visiting)
        } catch {
          throw error.under(LuaPath.component(key))
        }
        lua_settop(L, -2)
      }
      if table.kind == .map, !table.isEmpty, table.isSequence { table.kind = .array }
      return .table(table)
    case LUA_TFUNCTION:
      return .function(vm.makeReference(at: index, L))
    default:
      return .other(vm.makeReference(at: index, L))
    }
  }
}
