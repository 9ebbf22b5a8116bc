import CLua
import LuaSupport

extension LuaVM {
  /// Writes the value behind `reference` as `LuaValue.description` would write its snapshot,
  /// read table by table from Lua: no snapshot is made, so describing a large state costs the
  /// text, written out as it goes, not a copy of the state. A table that contains itself, which
  /// a snapshot refuses, is written as a comment where it recurs. `rootName` starts the path
  /// of a conversion error.
  public func writeDescription(
    of reference: LuaReference, rootName: String = "value",
    to output: inout some TextOutputStream
  ) throws(LuaError) {
    try stack.guarded { () throws(LuaError) in
      do throws(LuaError) {
        try stack.push(reference, in: self)
        var writer = LuaDescriptionWriter(vm: self, L: L)
        try writer.write(at: stack.absolute(-1), depth: 0, to: &output)
      } catch {
        throw error.rooted(at: rootName)
      }
    }
  }
}

/// `LuaValue.describe` over tables in Lua.
private struct LuaDescriptionWriter {
  unowned(unsafe) let vm: LuaVM
  let L: OpaquePointer
  /// The tables being written, outer first: one met again contains itself.
  var visiting: [UnsafeRawPointer] = []

  private var stack: LuaStack { LuaStack(L) }

  init(vm: LuaVM, L: OpaquePointer) {
    self.vm = vm
    self.L = L
  }

  mutating func write(
    at index: Int32, depth: Int, to output: inout some TextOutputStream
  ) throws(LuaError) {
    guard lua_type(L, index) == LUA_TTABLE else {
      output.write(try stack.value(at: index, in: vm).description)
      return
    }
    try stack.guarded { () throws(LuaError) in
      var table = index
      if lk_push_proxied_table(L, index) != 0 { table = stack.absolute(-1) }
      try writeTable(at: table, depth: depth, to: &output)
    }
  }

  private mutating func writeTable(
    at table: Int32, depth: Int, to output: inout some TextOutputStream
  ) throws(LuaError) {
    guard stack.reserve(8) else { throw .conversion(path: "", message: "nesting too deep") }
    var length: lua_Integer = 0
    while lua_rawgeti(L, table, length + 1) != LUA_TNIL {
      lua_settop(L, -2)
      length += 1
    }
    lua_settop(L, -2)
    var others: [LuaValue] = []
    lua_pushnil(L)
    while lk_next(L, table) != 0 {
      defer { lua_settop(L, -2) }
      if lua_isinteger(L, -2) != 0, case let key = lua_tointegerx(L, -2, nil), key >= 1,
        key <= length
      {
        continue
      }
      others.append(try stack.value(at: -2, in: vm))
    }
    if length == 0, others.isEmpty { return output.write("{}") }
    guard depth < LuaValue.maximumDepth else {
      return output.write("{ --[[ \(LuaValue.tooDeepMessage) ]] }")
    }
    let identity = lua_topointer(L, table)!
    if visiting.contains(identity) { return output.write("{ --[[ cycle ]] }") }
    visiting.append(identity)
    defer { visiting.removeLast() }
    output.write("{ ")
    if others.isEmpty {  // a sequence
      for position in 1...length {
        if position > 1 { output.write(", ") }
        lua_rawgeti(L, table, position)
        try write(at: stack.absolute(-1), depth: depth + 1, to: &output)
        lua_settop(L, -2)
      }
    } else {
      var keys = (0..<length).map { LuaValue.integer(Int($0) + 1) } + others
      keys.sort(by: LuaValue.keyOrder)
      for (position, key) in keys.enumerated() {
        if position > 0 { output.write(", ") }
        output.write(LuaValue.describeKey(key) + " = ")
        try stack.push(key, in: vm)
        lua_rawget(L, table)
        try write(at: stack.absolute(-1), depth: depth + 1, to: &output)
        lua_settop(L, -2)
      }
    }
    output.write(" }")
  }
}
