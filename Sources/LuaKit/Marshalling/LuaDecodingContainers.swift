import CLua
import LuaSupport

/// The `Decoder` for the value at `index`. `enumType` is set when decoding a Swift enum, whose
/// keyed container reads a tagged table (`{ type = "case_name", ... }`).
final class LuaValueDecoder: Decoder {
  unowned(unsafe) let decoding: LuaDecoding
  var index: Int32
  var enumType: Any.Type?
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  init(decoding: LuaDecoding, index: Int32, enumType: Any.Type?) {
    self.decoding = decoding
    self.index = index
    self.enumType = enumType
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    guard let enumType else {
      guard lua_type(decoding.L, index) == LUA_TTABLE else {
        throw decoding.mismatch("table", at: index)
      }
      return KeyedDecodingContainer(
        LuaKeyedDecodingContainer<Key>(
          decoding: decoding, table: index,
          isPlain: decoding.stack.hasPlainIndexing(index, in: decoding.vm)))
    }
    let table: Int32?
    let caseName: String
    switch lua_type(decoding.L, index) {
    case LUA_TSTRING:  // "increment" is shorthand for { type = "increment" }
      table = nil
      caseName = try decoding.string(at: index)
    case LUA_TTABLE:
      table = index
      _ = decoding.stack.rawGetField(index, LuaEncoder.enumCaseField)
      defer { lua_settop(decoding.L, -2) }
      guard lua_type(decoding.L, -1) == LUA_TSTRING else {
        throw decoding.mismatch("a string naming a case of \(enumType)", at: -1).under(
          "." + LuaEncoder.enumCaseField)
      }
      caseName = try decoding.string(at: -1)
    default:
      throw decoding.mismatch(
        "a case of \(enumType) (a table with a string type, or a string)", at: index)
    }
    guard Key(stringValue: caseName) != nil else {
      throw LuaError.conversion(
        path: table == nil ? "" : "." + LuaEncoder.enumCaseField,
        message: "\(LuaValue(caseName)) is not a case of \(enumType)")
    }
    return KeyedDecodingContainer(
      LuaKeyedDecodingContainer<Key>(decoding: decoding, table: table, caseName: caseName))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    try LuaUnkeyedDecodingContainer(decoding: decoding, table: index)
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    LuaSingleValueDecodingContainer(decoding: decoding, index: index)
  }
}

/// Reads fields of the table at `table`. Three roles:
/// - a plain table (a struct, a dictionary);
/// - the root of a tagged table (`caseName` set): its only key is the case, whose nested
///   container is the payload;
/// - the payload of a tagged table (`isPayload`): the same table, where the synthesized keys of
///   unlabelled values (`_0`, `_1`) read `value` or `_1`, `_2`. `table` is nil for the bare
///   string form, which has no payload.
struct LuaKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
  unowned(unsafe) let decoding: LuaDecoding
  let table: Int32?
  var caseName: String? = nil
  var isPayload = false
  /// No metamethods can run when indexing the table, so the cheaper `lua_getfield` is safe.
  var isPlain = false
  var codingPath: [any CodingKey] { [] }

  private var L: OpaquePointer { decoding.L }

  var allKeys: [Key] {
    if let caseName { return Key(stringValue: caseName).map { [$0] } ?? [] }
    guard let table else { return [] }
    var keys: [Key] = []
    lua_pushnil(L)
    while lk_next(L, table) != 0 {
      lua_settop(L, -2)
      if lua_type(L, -1) == LUA_TSTRING, let name = decoding.stack.string(at: -1) {
        if !isPayload || name != LuaEncoder.enumCaseField, let key = Key(stringValue: name) {
          keys.append(key)
        }
      } else if lua_type(L, -1) == LUA_TNUMBER, lua_isinteger(L, -1) != 0 {
        let integer = Int(lua_tointegerx(L, -1, nil))
        if let key = Key(intValue: integer) ?? Key(stringValue: String(integer)) {
          keys.append(key)
        }
      }
    }
    return keys
  }

  /// Pushes the value under `key` (nil when absent); returns the Lua name it was found under.
  @discardableResult
  private func push(_ key: Key) -> String {
    let name = key.stringValue
    guard let table else {
      lua_pushnil(L)
      return name
    }
    if isPayload, let position = unlabelledPosition(name) {
      if position == 0 {  // one unlabelled value is `value`; the first of several is `_1`
        if decoding.stack.rawGetField(table, "value") != LUA_TNIL { return "value" }
        lua_settop(L, -2)
      }
      _ = decoding.stack.rawGetField(table, "_\(position + 1)")
      return "_\(position + 1)"
    }
    let found =
      isPlain
      ? decoding.stack.plainGetField(table, name) : decoding.stack.rawGetField(table, name)
    if found == LUA_TNIL, let integer = key.intValue {
      lua_settop(L, -2)
      lua_rawgeti(L, table, lua_Integer(integer))
    }
    return name
  }

  func contains(_ key: Key) -> Bool {
    if let caseName { return key.stringValue == caseName }
    push(key)
    defer { lua_settop(L, -2) }
    return lua_type(L, -1) != LUA_TNIL
  }

  func decodeNil(forKey key: Key) throws -> Bool { !contains(key) }

  private func value<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    try read(key) { try decoding.decode(type, at: $0) }
  }

  /// Pushes the field, reads it with `reader`, pops it; errors get the field's name.
  @inline(__always)
  private func read<T>(_ key: Key, _ reader: (Int32) throws -> T) throws -> T {
    let top = decoding.stack.top
    defer { decoding.stack.setTop(top) }
    let name = push(key)
    do { return try reader(top + 1) } catch {
      throw LuaDecoding.luaError(error).under(LuaPath.component(key: name))
    }
  }

  func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
    try read(key) { try decoding.bool(at: $0) }
  }
  func decode(_ type: String.Type, forKey key: Key) throws -> String {
    try read(key) { try decoding.string(at: $0) }
  }
  func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
    try read(key) { try decoding.double(at: $0) }
  }
  func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try value(type, forKey: key) }
  func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
    try read(key) { try decoding.integer(Int.self, at: $0) }
  }
  func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try value(type, forKey: key) }
  func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try value(type, forKey: key) }
  func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try value(type, forKey: key) }
  func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try value(type, forKey: key) }
  func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try value(type, forKey: key) }
  func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try value(type, forKey: key) }
  func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
    try value(type, forKey: key)
  }
  func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
    try value(type, forKey: key)
  }
  func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
    try value(type, forKey: key)
  }
  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    try value(type, forKey: key)
  }

  func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type, forKey key: Key
  ) throws -> KeyedDecodingContainer<NestedKey> {
    if caseName != nil {  // the payload of the case: the tagged table itself
      return KeyedDecodingContainer(
        LuaKeyedDecodingContainer<NestedKey>(decoding: decoding, table: table, isPayload: true))
    }
    let name = push(key)  // stays on the stack while the container is in use
    guard lua_type(L, -1) == LUA_TTABLE else {
      throw decoding.mismatch("table", at: -1).under(LuaPath.component(key: name))
    }
    return KeyedDecodingContainer(
      LuaKeyedDecodingContainer<NestedKey>(decoding: decoding, table: decoding.stack.top))
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    let name = push(key)
    do {
      return try LuaUnkeyedDecodingContainer(decoding: decoding, table: decoding.stack.top)
    } catch {
      throw LuaDecoding.luaError(error).under(LuaPath.component(key: name))
    }
  }

  func superDecoder() throws -> any Decoder {
    guard let table else { throw decoding.mismatch("table", at: -1) }
    return LuaValueDecoder(decoding: decoding, index: table, enumType: nil)
  }

  func superDecoder(forKey key: Key) throws -> any Decoder {
    push(key)
    return LuaValueDecoder(decoding: decoding, index: decoding.stack.top, enumType: nil)
  }
}

/// Reads an array: a table whose keys are exactly 1...n.
struct LuaUnkeyedDecodingContainer: UnkeyedDecodingContainer {
  unowned(unsafe) let decoding: LuaDecoding
  let table: Int32
  let count: Int?
  private(set) var currentIndex = 0
  var codingPath: [any CodingKey] { [] }
  var isAtEnd: Bool { currentIndex >= count! }

  init(decoding: LuaDecoding, table: Int32) throws {
    self.decoding = decoding
    self.table = table
    self.count = try decoding.arrayCount(at: table)
  }

  private mutating func next<T: Decodable>(_ type: T.Type) throws -> T {
    let position = currentIndex + 1
    guard !isAtEnd else {
      throw LuaError.conversion(
        path: "", message: "expected an element at [\(position)], but the array has \(count!)")
    }
    let top = decoding.stack.top
    defer { decoding.stack.setTop(top) }
    lua_rawgeti(decoding.L, table, lua_Integer(position))
    do {
      let value = try decoding.decode(type, at: top + 1)
      currentIndex = position
      return value
    } catch {
      throw LuaDecoding.luaError(error).under(LuaPath.component(index: position))
    }
  }

  mutating func decodeNil() throws -> Bool { false }  // arrays have no holes
  mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type) }
  mutating func decode(_ type: String.Type) throws -> String { try next(type) }
  mutating func decode(_ type: Double.Type) throws -> Double { try next(type) }
  mutating func decode(_ type: Float.Type) throws -> Float { try next(type) }
  mutating func decode(_ type: Int.Type) throws -> Int { try next(type) }
  mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type) }
  mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type) }
  mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type) }
  mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type) }
  mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type) }
  mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type) }
  mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type) }
  mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type) }
  mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type) }
  mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next(type) }

  /// The element stays on the stack while the nested container is in use.
  private mutating func pushNext() throws -> Int32 {
    guard !isAtEnd else {
      throw LuaError.conversion(path: "", message: "the array has only \(count!) elements")
    }
    currentIndex += 1
    lua_rawgeti(decoding.L, table, lua_Integer(currentIndex))
    return decoding.stack.top
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type
  ) throws -> KeyedDecodingContainer<NestedKey> {
    let element = try pushNext()
    guard lua_type(decoding.L, element) == LUA_TTABLE else {
      throw decoding.mismatch("table", at: element).under(LuaPath.component(index: currentIndex))
    }
    return KeyedDecodingContainer(
      LuaKeyedDecodingContainer<NestedKey>(decoding: decoding, table: element))
  }

  mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
    try LuaUnkeyedDecodingContainer(decoding: decoding, table: pushNext())
  }

  mutating func superDecoder() throws -> any Decoder {
    LuaValueDecoder(decoding: decoding, index: try pushNext(), enumType: nil)
  }
}

struct LuaSingleValueDecodingContainer: SingleValueDecodingContainer {
  unowned(unsafe) let decoding: LuaDecoding
  let index: Int32
  var codingPath: [any CodingKey] { [] }

  func decodeNil() -> Bool { lua_type(decoding.L, index) <= LUA_TNIL }
  func decode(_ type: Bool.Type) throws -> Bool { try decoding.bool(at: index) }
  func decode(_ type: String.Type) throws -> String { try decoding.string(at: index) }
  func decode(_ type: Double.Type) throws -> Double { try decoding.double(at: index) }
  func decode(_ type: Float.Type) throws -> Float { Float(try decoding.double(at: index)) }
  func decode(_ type: Int.Type) throws -> Int { try decoding.integer(type, at: index) }
  func decode(_ type: Int8.Type) throws -> Int8 { try decoding.integer(type, at: index) }
  func decode(_ type: Int16.Type) throws -> Int16 { try decoding.integer(type, at: index) }
  func decode(_ type: Int32.Type) throws -> Int32 { try decoding.integer(type, at: index) }
  func decode(_ type: Int64.Type) throws -> Int64 { try decoding.integer(type, at: index) }
  func decode(_ type: UInt.Type) throws -> UInt { try decoding.integer(type, at: index) }
  func decode(_ type: UInt8.Type) throws -> UInt8 { try decoding.integer(type, at: index) }
  func decode(_ type: UInt16.Type) throws -> UInt16 { try decoding.integer(type, at: index) }
  func decode(_ type: UInt32.Type) throws -> UInt32 { try decoding.integer(type, at: index) }
  func decode(_ type: UInt64.Type) throws -> UInt64 { try decoding.integer(type, at: index) }
  func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoding.decode(type, at: index) }
}
