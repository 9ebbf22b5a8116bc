import CLua
import Glibc
import LuaSupport

/// The raw layer: one Lua thread's stack, with the few operations the safe layer is built from.
///
/// Only LuaKit touches the stack: through this type, or through the C API in the VM's entry
/// points (loading, calling) beside it. Table access here is raw
/// (`lua_rawget`, `lua_rawset`, `lua_next`): metamethods would run Lua code that may raise,
/// and a raise must never unwind through a Swift frame.
struct LuaStack {
  let L: OpaquePointer

  init(_ L: OpaquePointer) { self.L = L }

  var top: Int32 { lua_gettop(L) }

  func setTop(_ index: Int32) { lua_settop(L, index) }

  /// Runs `body` and puts the stack top back where it was, whatever `body` pushed or threw.
  func guarded<Result, Failure: Error>(
    _ body: () throws(Failure) -> Result
  ) throws(Failure) -> Result {
    let saved = lua_gettop(L)
    defer { lua_settop(L, saved) }
    return try body()
  }

  /// Makes room for `count` more slots; false only when the C stack limit is reached.
  func reserve(_ count: Int32) -> Bool { lua_checkstack(L, count) != 0 }

  func absolute(_ index: Int32) -> Int32 { lua_absindex(L, index) }

  func type(at index: Int32) -> Int32 { lua_type(L, index) }

  /// Lua's type name, with `integer` and `float` told apart.
  func typeName(at index: Int32) -> String {
    switch lua_type(L, index) {
    case LUA_TNUMBER: return lua_isinteger(L, index) != 0 ? "integer" : "float"
    case let type: return String(cString: lua_typename(L, type))
    }
  }

  func push(_ string: String) {
    // Borrows the string's own bytes when it has them contiguously (native and small strings
    // do); copying it into a `var` for `withUTF8` would cost a retain and a release.
    let pushed: Void? = string.utf8.withContiguousStorageIfAvailable { buffer in
      _ = lua_pushlstring(
        L,
        UnsafeRawPointer(buffer.baseAddress)?
          .assumingMemoryBound(to: CChar.self), buffer.count)
    }
    if pushed == nil {
      var string = string
      string.withUTF8 { buffer in
        _ = lua_pushlstring(
          L,
          UnsafeRawPointer(buffer.baseAddress)?
            .assumingMemoryBound(to: CChar.self), buffer.count)
      }
    }
  }

  func push(bytes: UnsafeRawBufferPointer) {
    _ = lua_pushlstring(L, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count)
  }

  /// The bytes of the string at `index`, without copying. Call only when the value is a string:
  /// `lua_tolstring` would otherwise convert a number in place.
  func withBytes<R>(at index: Int32, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
    var length = 0
    let pointer = lua_tolstring(L, index, &length)
    return try body(UnsafeRawBufferPointer(start: pointer, count: length))
  }

  /// The string at `index` as text, or nil when it is not valid UTF-8.
  func string(at index: Int32) -> String? {
    withBytes(at: index) { UTF8Validation.string($0) }
  }

  /// `t[key]` without metamethods, for the table at `table`; pushes the value.
  func rawGetField(_ table: Int32, _ key: String) -> Int32 {
    push(key)
    return lua_rawget(L, table < 0 ? table - 1 : table)
  }

  /// `t[key]` for a table known to have no metamethods that could run code: one call, and Lua
  /// interns the key through its cache of C strings.
  func plainGetField(_ table: Int32, _ key: String) -> Int32 {
    // A C string ends at the first NUL, so keys holding one take the general path.
    let count = key.utf8.count
    guard count < 40 else { return rawGetField(table, key) }
    return key.withCString {
      strlen($0) == count ? lua_getfield(L, table, $0) : rawGetField(table, key)
    }
  }

  /// `t[key] = top` (popping it) for a table without metamethods; see `plainGetField`.
  func plainSetField(_ table: Int32, _ key: String) {
    let count = key.utf8.count
    guard count < 40 else { return rawSetField(table, key) }
    key.withCString { strlen($0) == count ? lua_setfield(L, table, $0) : rawSetField(table, key) }
  }

  /// True when indexing the table at `index` cannot run Lua code: it has no metatable, or
  /// only the array marker (which has no metamethods).
  func hasPlainIndexing(_ index: Int32, in vm: LuaVM) -> Bool {
    guard lua_getmetatable(L, index) != 0 else { return true }
    lua_settop(L, -2)
    return vm.hasArrayMarker(at: index, L)
  }

  /// `t[key] = top` without metamethods; pops the value.
  func rawSetField(_ table: Int32, _ key: String) {
    let table = absolute(table)
    push(key)
    lua_rotate(L, -2, 1)
    lua_rawset(L, table)
  }

  /// The message of the error value on top, whatever its type.
  func errorMessage(at index: Int32) -> String {
    if lua_type(L, index) == LUA_TSTRING {
      return string(at: index)
        ?? String(decoding: withBytes(at: index) { Array($0) }, as: UTF8.self)
    }
    return "(error object is a \(typeName(at: index)) value)"
  }
}
