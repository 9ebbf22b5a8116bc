import CLua

/// A Swift value that pushes itself into Lua as a table, field by field, with no `LuaValue` or
/// `Encoder` in between: the fast way in for a value pushed again and again, such as an action.
///
/// ```swift
/// struct Toggle: LuaTableConvertible {
///   static let type: LuaName = "type", toggle: LuaName = "toggle", id: LuaName = "id"
///   var id: Int
///   func write(to table: inout LuaTableWriter) throws(LuaError) {
///     try table.set(Self.type, Self.toggle)
///     try table.set(Self.id, id)
///   }
/// }
/// ```
public protocol LuaTableConvertible {
  /// Writes the value's fields into `table`, one `set` for each.
  func write(to table: inout LuaTableWriter) throws(LuaError)
}

/// The table a `LuaTableConvertible` value fills. Each `set` stores one field, raw: a name
/// interned in the VM, and a value pushed straight onto the stack.
public struct LuaTableWriter: ~Copyable {
  let stack: LuaStack
  /// Unowned: the writer lives only inside a push, while its caller holds the VM.
  unowned(unsafe) let vm: LuaVM
  let depth: Int

  /// Sets the field `name` to the integer `value`.
  public mutating func set(_ name: LuaName, _ value: Int) throws(LuaError) {
    try stack.push(name)
    lua_pushinteger(stack.L, lua_Integer(value))
    lua_rawset(stack.L, -3)
  }

  /// Sets the field `name` to the float `value` (a float even when it is whole).
  public mutating func set(_ name: LuaName, _ value: Double) throws(LuaError) {
    try stack.push(name)
    lua_pushnumber(stack.L, value)
    lua_rawset(stack.L, -3)
  }

  /// Sets the field `name` to the boolean `value`.
  public mutating func set(_ name: LuaName, _ value: Bool) throws(LuaError) {
    try stack.push(name)
    lua_pushboolean(stack.L, value ? 1 : 0)
    lua_rawset(stack.L, -3)
  }

  /// Sets the field `name` to the string `value`, its UTF-8 bytes.
  public mutating func set(_ name: LuaName, _ value: String) throws(LuaError) {
    try stack.push(name)
    stack.push(value)
    lua_rawset(stack.L, -3)
  }

  /// A string value that is pushed again and again (an action's type, say), interned too.
  public mutating func set(_ name: LuaName, _ value: LuaName) throws(LuaError) {
    try stack.push(name)
    try stack.push(value)
    lua_rawset(stack.L, -3)
  }

  /// A `LuaValue`, pushed as `LuaValue`s are (arrays keep their marker). `nil` sets nothing.
  public mutating func set(_ name: LuaName, _ value: LuaValue) throws(LuaError) {
    if case .nil = value { return }
    try stack.push(name)
    do throws(LuaError) { try stack.push(value, in: vm) } catch {
      throw error.under(LuaPath.component(key: name.string))
    }
    lua_rawset(stack.L, -3)
  }

  /// A nested table.
  public mutating func set(_ name: LuaName, _ value: some LuaTableConvertible) throws(LuaError) {
    try stack.push(name)
    do throws(LuaError) { try stack.push(table: value, in: vm, depth: depth + 1) } catch {
      throw error.under(LuaPath.component(key: name.string))
    }
    lua_rawset(stack.L, -3)
  }
}

extension LuaStack {
  /// Pushes the table `value` writes.
  func push(
    table value: some LuaTableConvertible, in vm: LuaVM, depth: Int = 0
  ) throws(LuaError) {
    guard depth < LuaValue.maximumDepth else {
      throw .conversion(path: "", message: LuaValue.tooDeepMessage)
    }
    guard reserve(4) else { throw .conversion(path: "", message: "nesting too deep") }
    lua_createtable(L, 0, 4)
    var writer = LuaTableWriter(stack: self, vm: vm, depth: depth)
    try value.write(to: &writer)
  }
}

extension LuaArgument {
  /// The table `value` writes, pushed field by field.
  public static func table(_ value: some LuaTableConvertible) -> LuaArgument {
    LuaArgument { (stack, vm) throws(LuaError) in try stack.push(table: value, in: vm) }
  }
}
