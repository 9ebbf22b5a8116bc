/// What the marshalling needs to know about a Swift type that `Codable` does not say.

/// True for Swift enums (not `Optional`), read from the type's runtime metadata kind, whose
/// values are part of Swift's stable ABI (`MetadataKind::Enum` is 0x201). Enums marshal to the
/// action shape `{ type = "case_name", ... }`, which needs to know it is looking at one.
func isEnumType(_ type: Any.Type) -> Bool {
  unsafeBitCast(type, to: UnsafePointer<Int>.self).pointee == 0x201
}

/// Types the encoder writes itself instead of going through `Codable`'s containers: arrays
/// (element by element, no boxed container per array) and dictionaries with `Int` keys (which
/// `Codable` would turn into strings).
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
    let array = value.assumingMemoryBound(to: Self.self).pointee
    let table = try encoding.beginArray(count: array.count)
    var index = 0
    while index < array.count {
      try encoding.pushElement(array[index], at: index + 1, of: table)
      index += 1
    }
  }
}

extension Dictionary: LuaDirectEncodable where Key == Int, Value: Encodable {
  static func push(_ value: UnsafeRawPointer, into encoding: LuaEncoding) throws {
    let dictionary = value.assumingMemoryBound(to: Self.self).pointee
    let table = try encoding.beginMap(count: dictionary.count)
    var index = dictionary.startIndex
    while index != dictionary.endIndex {
      try encoding.pushEntry(dictionary.keys[index], dictionary.values[index], of: table)
      index = dictionary.index(after: index)
    }
  }
}

/// The decoding side of `LuaDirectEncodable`. `Result` is always `Self`: returning it
/// through a generic parameter spares the caller a dynamic cast out of an existential.
protocol LuaDirectDecodable {
  static func decode<Result>(
    _ type: Result.Type, from decoding: LuaDecoding, at index: Int32) throws -> Result
}

extension Array: LuaDirectDecodable where Element: Decodable {
  static func decode<Result>(
    _ type: Result.Type, from decoding: LuaDecoding, at index: Int32
  ) throws -> Result {
    let count = try decoding.arrayCount(at: index)
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

extension Dictionary: LuaDirectDecodable where Key == Int, Value: Decodable {
  static func decode<Result>(
    _ type: Result.Type, from decoding: LuaDecoding, at index: Int32
  ) throws -> Result {
    var result = Self()
    try decoding.forEachIntegerKey(of: index) { key, slot in
      result[key] = try decoding.decode(Value.self, at: slot)
    }
    return unsafeBitCast(result, to: Result.self)
  }
}

/// Per-type facts, found once per encoding or decoding rather than once per value: looking up
/// a protocol conformance costs more than encoding a small struct. A state has few distinct
/// types, so a short list searched from the most recent beats hashing.
struct LuaTypeFacts<Direct> {
  private var known: [(type: ObjectIdentifier, fact: Direct?)] = []

  mutating func direct(for type: Any.Type, _ lookUp: () -> Direct?) -> Direct? {
    let id = ObjectIdentifier(type)
    for entry in known.reversed() where entry.type == id { return entry.fact }
    let fact = lookUp()
    known.append((id, fact))
    return fact
  }

  mutating func record(_ fact: Direct, for type: Any.Type) {
    let id = ObjectIdentifier(type)
    known.removeAll { $0.type == id }
    known.append((id, fact))
  }
}

/// The synthesized keys of unlabelled associated values, `_0`, `_1`, ...: their position.
func unlabelledPosition(_ key: String) -> Int? {
  guard key.utf8.first == UInt8(ascii: "_"), key.utf8.count > 1 else { return nil }
  return Int(key.dropFirst())
}
