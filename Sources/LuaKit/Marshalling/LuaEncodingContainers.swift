import CLua
import LuaSupport

/// Writes fields into the table at `table`. For the root container of an enum value, the
/// case's nested container writes into the same table, after setting `type` to the case name:
/// that is how a Swift enum becomes a tagged table `{ type = "case_name", ... }`.
struct LuaKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  unowned(unsafe) let encoding: LuaEncoding
  let table: Int32
  /// How deep the table is, counting tables from the value encoded (1).
  let level: Int
  /// The root container of an enum: its one nested container is the case's payload.
  let isEnumRoot: Bool
  /// The payload of an enum case: `_0`, `_1` (unlabelled values) become `value` or `_1`, `_2`.
  var isPayload = false
  var codingPath: [any CodingKey] { [] }

  init(
    encoding: LuaEncoding, table: Int32, level: Int, isEnumRoot: Bool = false,
    isPayload: Bool = false
  ) {
    self.encoding = encoding
    self.table = table
    self.level = level
    self.isEnumRoot = isEnumRoot
    self.isPayload = isPayload
  }

  private var L: OpaquePointer { encoding.L }

  /// The Lua field name for `key`.
  private func fieldName(_ key: Key) -> String {
    let name = key.stringValue
    guard isPayload, let position = unlabelledPosition(name) else { return name }
    if position == 0 { return "value" }
    if position == 1 {
      // A second unlabelled value: the first one moves from `value` to `_1`.
      _ = encoding.stack.rawGetField(table, "value")
      encoding.stack.rawSetField(table, "_1")
      lua_pushnil(L)
      encoding.stack.rawSetField(table, "value")
    }
    return "_\(position + 1)"
  }

  private func set(_ key: Key, _ push: () throws -> Void) throws {
    try encoding.check(level: level)
    let name = fieldName(key)
    do { try encoding.inside(level: level, push) } catch {
      throw LuaEncoding.luaError(error).under(LuaPath.component(key: name))
    }
    // The tables made here have no metatable, so the cheaper `lua_setfield` sets raw.
    encoding.stack.plainSetField(table, name)
  }

  mutating func encodeNil(forKey key: Key) throws {}  // absent, like Optional.none
  mutating func encode(_ value: Bool, forKey key: Key) throws {
    try set(key) { lua_pushboolean(L, value ? 1 : 0) }
  }
  mutating func encode(_ value: String, forKey key: Key) throws {
    try set(key) { encoding.stack.push(value) }
  }
  mutating func encode(_ value: Double, forKey key: Key) throws {
    try set(key) { lua_pushnumber(L, value) }
  }
  mutating func encode(_ value: Float, forKey key: Key) throws {
    try set(key) { lua_pushnumber(L, Double(value)) }
  }
  mutating func encode(_ value: Int, forKey key: Key) throws {
    try set(key) { lua_pushinteger(L, lua_Integer(value)) }
  }
  mutating func encode(_ value: Int8, forKey key: Key) throws {
    try set(key) { try encoding.pushInteger(value) }
  }
  mutating func encode(_ value: Int16, forKey key: Key) throws {
    try set(key) { try encoding.pushInteger(value) }
  }
  mutating func encode(_ value: Int32, forKey key: Key) throws {
    try set(key) { try encoding.pushInteger(value) }
  }
  mutating func encode(_ value: Int64, forKey key: Key) throws {
    try set(key) { try encoding.pushInteger(value) }
  }
  mutating func encode(_ value: UInt, forKey key: Key) throws {
    try set(key) { try encoding.pushInteger(value) }
  }
  mutating func encode(_ value: UInt8, forKey key: Key) throws {
    try set(key) { try encoding.pushInteger(value) }
  }
  mutating func encode(_ value: UInt16, forKey key: Key) throws {
    try set(key) { try encoding.pushInteger(value) }
  }
  mutating func encode(_ value: UInt32, forKey key: Key) throws {
    try set(key) { try encoding.pushInteger(value) }
  }
  mutating func encode(_ value: UInt64, forKey key: Key) throws {
    try set(key) { try encoding.pushInteger(value) }
  }
  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    try set(key) { try encoding.push(value) }
  }

  /// A new table under `key`, left on the stack for the nested container to fill.
  private func nestedTable(forKey key: Key, array: Bool) -> Int32 {
    encoding.noteNested(level: level + 1)
    lua_createtable(L, 0, 0)
    if array { encoding.vm.setArrayMarker(on: -1, L) }
    let nested = encoding.stack.top
    encoding.stack.push(fieldName(key))
    lua_pushvalue(L, nested)
    lua_rawset(L, table)
    return nested
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    if isEnumRoot {
      encoding.stack.push(key.stringValue)
      encoding.stack.rawSetField(table, LuaEncoder.enumCaseField)
      return KeyedEncodingContainer(
        LuaKeyedEncodingContainer<NestedKey>(
          encoding: encoding, table: table, level: level, isPayload: true))
    }
    return KeyedEncodingContainer(
      LuaKeyedEncodingContainer<NestedKey>(
        encoding: encoding, table: nestedTable(forKey: key, array: false), level: level + 1))
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    LuaUnkeyedEncodingContainer(
      encoding: encoding, table: nestedTable(forKey: key, array: true), level: level + 1)
  }

  /// A superclass encodes its fields into the same table: Lua has no inheritance to mirror.
  mutating func superEncoder() -> any Encoder {
    LuaTableEncoder(encoding: encoding, table: table, level: level)
  }

  mutating func superEncoder(forKey key: Key) -> any Encoder {
    LuaTableEncoder(
      encoding: encoding, table: nestedTable(forKey: key, array: false), level: level + 1)
  }
}

/// Appends elements to the array at `table`.
struct LuaUnkeyedEncodingContainer: UnkeyedEncodingContainer {
  unowned(unsafe) let encoding: LuaEncoding
  let table: Int32
  /// How deep the table is, counting tables from the value encoded (1).
  let level: Int
  private(set) var count = 0
  var codingPath: [any CodingKey] { [] }

  init(encoding: LuaEncoding, table: Int32, level: Int) {
    self.encoding = encoding
    self.table = table
    self.level = level
  }

  private var L: OpaquePointer { encoding.L }

  /// `push` gets the encoding and the state as arguments, so it need not capture `self`.
  private mutating func append(_ push: (LuaEncoding, OpaquePointer) throws -> Void) throws {
    try encoding.check(level: level)
    let (encoding, L) = (encoding, L)
    do { try encoding.inside(level: level) { try push(encoding, L) } } catch {
      throw LuaEncoding.luaError(error).under(LuaPath.component(index: count + 1))
    }
    if lua_type(L, -1) == LUA_TNIL {  // an Optional.none element
      lua_settop(L, -2)
      try encodeNil()
    }
    lua_rawseti(L, table, lua_Integer(count + 1))
    count += 1
  }

  mutating func encodeNil() throws {
    throw LuaError.conversion(
      path: LuaPath.component(index: count + 1),
      message: "nil cannot be an element of an array: Lua arrays have no holes")
  }
  mutating func encode(_ value: Bool) throws {
    try append { encoding, L in lua_pushboolean(L, value ? 1 : 0) }
  }
  mutating func encode(_ value: String) throws {
    try append { encoding, L in encoding.stack.push(value) }
  }
  mutating func encode(_ value: Double) throws {
    try append { encoding, L in lua_pushnumber(L, value) }
  }
  mutating func encode(_ value: Float) throws {
    try append { encoding, L in lua_pushnumber(L, Double(value)) }
  }
  mutating func encode(_ value: Int) throws {
    try append { encoding, L in lua_pushinteger(L, lua_Integer(value)) }
  }
  mutating func encode(_ value: Int8) throws {
    try append { encoding, L in try encoding.pushInteger(value) }
  }
  mutating func encode(_ value: Int16) throws {
    try append { encoding, L in try encoding.pushInteger(value) }
  }
  mutating func encode(_ value: Int32) throws {
    try append { encoding, L in try encoding.pushInteger(value) }
  }
  mutating func encode(_ value: Int64) throws {
    try append { encoding, L in try encoding.pushInteger(value) }
  }
  mutating func encode(_ value: UInt) throws {
    try append { encoding, L in try encoding.pushInteger(value) }
  }
  mutating func encode(_ value: UInt8) throws {
    try append { encoding, L in try encoding.pushInteger(value) }
  }
  mutating func encode(_ value: UInt16) throws {
    try append { encoding, L in try encoding.pushInteger(value) }
  }
  mutating func encode(_ value: UInt32) throws {
    try append { encoding, L in try encoding.pushInteger(value) }
  }
  mutating func encode(_ value: UInt64) throws {
    try append { encoding, L in try encoding.pushInteger(value) }
  }
  mutating func encode<T: Encodable>(_ value: T) throws {
    try append { encoding, L in try encoding.push(value) }
  }

  private mutating func nestedTable(array: Bool) -> Int32 {
    encoding.noteNested(level: level + 1)
    lua_createtable(L, 0, 0)
    if array { encoding.vm.setArrayMarker(on: -1, L) }
    let nested = encoding.stack.top
    lua_pushvalue(L, nested)
    lua_rawseti(L, table, lua_Integer(count + 1))
    count += 1
    return nested
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type
  ) -> KeyedEncodingContainer<NestedKey> {
    KeyedEncodingContainer(
      LuaKeyedEncodingContainer<NestedKey>(
        encoding: encoding, table: nestedTable(array: false), level: level + 1))
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    LuaUnkeyedEncodingContainer(
      encoding: encoding, table: nestedTable(array: true), level: level + 1)
  }

  mutating func superEncoder() -> any Encoder {
    LuaTableEncoder(encoding: encoding, table: nestedTable(array: false), level: level + 1)
  }
}

/// An `Encoder` whose containers write into an existing table (for `superEncoder`).
final class LuaTableEncoder: Encoder {
  unowned(unsafe) let encoding: LuaEncoding
  let table: Int32
  /// How deep the table is, counting tables from the value encoded (1).
  let level: Int
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  init(encoding: LuaEncoding, table: Int32, level: Int) {
    self.encoding = encoding
    self.table = table
    self.level = level
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    KeyedEncodingContainer(
      LuaKeyedEncodingContainer<Key>(encoding: encoding, table: table, level: level))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    LuaUnkeyedEncodingContainer(encoding: encoding, table: table, level: level)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    // The value replaces the table's slot content only through a keyed or unkeyed container;
    // a single value here lands under the key `value`.
    LuaFieldValueEncodingContainer(encoding: encoding, table: table)
  }
}

/// A single value written into `table.value` (only reachable through `superEncoder`).
struct LuaFieldValueEncodingContainer: SingleValueEncodingContainer {
  unowned(unsafe) let encoding: LuaEncoding
  let table: Int32
  var codingPath: [any CodingKey] { [] }

  private func set(_ push: () throws -> Void) throws {
    try push()
    encoding.stack.rawSetField(table, "value")
  }

  mutating func encodeNil() throws {}
  mutating func encode(_ value: Bool) throws {
    try set { lua_pushboolean(encoding.L, value ? 1 : 0) }
  }
  mutating func encode(_ value: String) throws { try set { encoding.stack.push(value) } }
  mutating func encode(_ value: Double) throws { try set { lua_pushnumber(encoding.L, value) } }
  mutating func encode(_ value: Float) throws {
    try set { lua_pushnumber(encoding.L, Double(value)) }
  }
  mutating func encode(_ value: Int) throws { try set { try encoding.pushInteger(value) } }
  mutating func encode(_ value: Int8) throws { try set { try encoding.pushInteger(value) } }
  mutating func encode(_ value: Int16) throws { try set { try encoding.pushInteger(value) } }
  mutating func encode(_ value: Int32) throws { try set { try encoding.pushInteger(value) } }
  mutating func encode(_ value: Int64) throws { try set { try encoding.pushInteger(value) } }
  mutating func encode(_ value: UInt) throws { try set { try encoding.pushInteger(value) } }
  mutating func encode(_ value: UInt8) throws { try set { try encoding.pushInteger(value) } }
  mutating func encode(_ value: UInt16) throws { try set { try encoding.pushInteger(value) } }
  mutating func encode(_ value: UInt32) throws { try set { try encoding.pushInteger(value) } }
  mutating func encode(_ value: UInt64) throws { try set { try encoding.pushInteger(value) } }
  mutating func encode<T: Encodable>(_ value: T) throws { try set { try encoding.push(value) } }
}
