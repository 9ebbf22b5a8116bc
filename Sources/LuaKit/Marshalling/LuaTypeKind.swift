import CLua

/// What the marshalling needs to know about a Swift type that `Codable` does not say.

/// The kind of a Swift type, read from its runtime metadata, whose kind values are part of
/// Swift's stable ABI (`MetadataKind`). Enums marshal to tagged tables
/// `{ type = "case_name", ... }`, which needs to know it is looking at one; classes are where
/// cycles can come from. Reading one word is far cheaper than a dynamic cast.
enum LuaTypeKind {
  case `enum`, `class`, other

  init(_ type: Any.Type) {
    let kind = unsafeBitCast(type, to: UnsafePointer<Int>.self).pointee
    switch kind {
    case 0x201: self = .enum  // MetadataKind::Enum (Optional is 0x202)
    case 0, 0x800...: self = .class  // MetadataKind::Class, or an isa pointer
    default: self = .other
    }
  }
}

func isEnumType(_ type: Any.Type) -> Bool { LuaTypeKind(type) == .enum }

/// Types the encoder writes itself instead of going through `Codable`'s containers: arrays
/// (element by element, no boxed container per array) and dictionaries with `Int` keys (which
/// `Codable` would turn into strings) or `String` keys (whose entries a refused value pushes
/// again in key order, `LuaEncoding.inKeyOrder`).
///
/// The loops live in these extensions on purpose: in unspecialized generic code, naming a
/// generic type (`[Element]`, a tuple, an iterator) looks its metadata up at run time on every
/// call, while `Self` arrives ready. The value comes as a pointer so that calling through the
/// metatype needs no dynamic cast.
protocol LuaDirectEncodable {
  static func push(_ value: UnsafeRawPointer, into encoding: LuaEncoding) throws
}

extension Array: LuaDirectEncodable where Element: Encodable {
  static func push(_ value: UnsafeRawPointer, into encoding: LuaEncoding) throws {
    // Arrays of scalars (tags, ids, ...) are common: for them a loop compiled for the element
    // type spares a generic call and a metadata lookup per element.
    if Element.self == String.self {
      return try encoding.pushScalars(value.assumingMemoryBound(to: [String].self).pointee) {
        encoding.stack.push($0)
      }
    }
    if Element.self == Int.self {
      return try encoding.pushScalars(value.assumingMemoryBound(to: [Int].self).pointee) {
        lua_pushinteger(encoding.L, lua_Integer($0))
      }
    }
    if Element.self == Double.self {
      return try encoding.pushScalars(value.assumingMemoryBound(to: [Double].self).pointee) {
        lua_pushnumber(encoding.L, $0)
      }
    }
    let array = value.assumingMemoryBound(to: Self.self).pointee
    let table = try encoding.beginArray(count: array.count)
    var index = 0
    while index < array.count {
      try encoding.pushElement(array[index], at: index + 1, of: table)
      index += 1
    }
  }
}

extension Dictionary: LuaDirectEncodable where Key: LuaDirectKey, Value: Encodable {
  static func push(_ value: UnsafeRawPointer, into encoding: LuaEncoding) throws {
    let dictionary = value.assumingMemoryBound(to: Self.self).pointee
    let table = try encoding.beginMap(count: dictionary.count)
    if encoding.inKeyOrder {
      for key in dictionary.keys.sorted(by: { LuaValue.keyOrder($0.luaKey, $1.luaKey) }) {
        try encoding.pushEntry(key, dictionary[key]!, of: table)
      }
      return
    }
    var index = dictionary.startIndex
    while index != dictionary.endIndex {
      try encoding.pushEntry(dictionary.keys[index], dictionary.values[index], of: table)
      index = dictionary.index(after: index)
    }
  }
}

/// The keys of a dictionary the encoder writes itself: each is the Lua key it stands for.
protocol LuaDirectKey: Hashable {
  /// Pushes the Lua key.
  func push(into encoding: LuaEncoding)
  /// The key in an error's path.
  var pathComponent: String { get }
  /// The key as a `LuaValue`, for the key order.
  var luaKey: LuaValue { get }
}

extension Int: LuaDirectKey {
  func push(into encoding: LuaEncoding) { lua_pushinteger(encoding.L, lua_Integer(self)) }
  var pathComponent: String { LuaPath.component(index: self) }
  var luaKey: LuaValue { .integer(self) }
}

extension String: LuaDirectKey {
  func push(into encoding: LuaEncoding) { encoding.stack.push(self) }
  var pathComponent: String { LuaPath.component(key: self) }
  var luaKey: LuaValue { .string(LuaString(self)) }
}

/// The decoding side of `LuaDirectEncodable`. `Result` is always `Self`: returning it
/// through a generic parameter spares the caller a dynamic cast out of an existential.
protocol LuaDirectDecodable {
  static func decode<Result>(
    _ type: Result.Type, from decoding: LuaDecoding, at index: Int32
  ) throws -> Result
}

extension Array: LuaDirectDecodable where Element: Decodable {
  static func decode<Result>(
    _ type: Result.Type, from decoding: LuaDecoding, at index: Int32
  ) throws -> Result {
    let count = try decoding.arrayCount(at: index)
    // As in `push`: arrays of scalars through loops compiled for them.
    if Element.self == String.self {
      let strings = try decoding.scalars(count, of: index) { try decoding.string(at: $0) }
      return unsafeBitCast(strings, to: Result.self)
    }
    if Element.self == Int.self {
      let integers = try decoding.scalars(count, of: index) {
        try decoding.integer(Int.self, at: $0)
      }
      return unsafeBitCast(integers, to: Result.self)
    }
    if Element.self == Double.self {
      let doubles = try decoding.scalars(count, of: index) { try decoding.double(at: $0) }
      return unsafeBitCast(doubles, to: Result.self)
    }
    var result = Self()
    result.reserveCapacity(count)
    var position = 1
    while position <= count {
      result.append(try decoding.decodeElement(Element.self, at: position, of: index))
      position += 1
    }
    return unsafeBitCast(result, to: Result.self)
  }
}

/// The keys a dictionary decodes from a Lua table: every key must be one, or it is an error
/// naming it (a key silently dropped is data lost).
protocol LuaDecodableKey: Hashable {
  /// The key at `index`, or nil when a Lua key of that type cannot be one.
  static func key(at index: Int32, of decoding: LuaDecoding) -> Self?
  static var expected: String { get }
}

extension Int: LuaDecodableKey {
  static func key(at index: Int32, of decoding: LuaDecoding) -> Int? {
    guard lua_type(decoding.L, index) == LUA_TNUMBER, lua_isinteger(decoding.L, index) != 0 else {
      return nil
    }
    return Int(lua_tointegerx(decoding.L, index, nil))
  }
  static var expected: String { "integer keys" }
}

extension String: LuaDecodableKey {
  /// A string key, or an integer as its decimal text (`{ [1] = x }` gives `"1"`).
  static func key(at index: Int32, of decoding: LuaDecoding) -> String? {
    switch lua_type(decoding.L, index) {
    case LUA_TSTRING: return decoding.stack.string(at: index)
    case LUA_TNUMBER where lua_isinteger(decoding.L, index) != 0:
      return String(lua_tointegerx(decoding.L, index, nil))
    default: return nil
    }
  }
  static var expected: String { "string keys (UTF-8 text, or integers)" }
}

extension Dictionary: LuaDirectDecodable where Key: LuaDecodableKey, Value: Decodable {
  static func decode<Result>(
    _ type: Result.Type, from decoding: LuaDecoding, at index: Int32
  ) throws -> Result {
    var result = Self()
    try decoding.forEachKey(of: index) { slot in
      guard let key = Key.key(at: slot, of: decoding) else {
        throw LuaError.conversion(
          path: "",
          message: "expected \(Key.expected), got the \(decoding.stack.typeName(at: slot)) key "
            + (try decoding.stack.value(at: slot, in: decoding.vm)).description)
      }
      do { result[key] = try decoding.decode(Value.self, at: slot + 1) } catch {
        let name = try decoding.stack.value(at: slot, in: decoding.vm)
        throw LuaDecoding.luaError(error).under(LuaPath.component(name))
      }
    }
    return unsafeBitCast(result, to: Result.self)
  }
}

/// The synthesized keys of unlabelled associated values, `_0`, `_1`, ...: their position.
func unlabelledPosition(_ key: String) -> Int? {
  guard key.utf8.first == UInt8(ascii: "_"), key.utf8.count > 1 else { return nil }
  return Int(key.dropFirst())
}
