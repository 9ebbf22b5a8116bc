/// What the marshalling needs to know about a Swift type that `Codable` does not say.

/// True for Swift enums (not `Optional`), read from the type's runtime metadata kind, whose
/// values are part of Swift's stable ABI (`MetadataKind::Enum` is 0x201). Enums marshal to the
/// action shape `{ type = "case_name", ... }`, which needs to know it is looking at one.
func isEnumType(_ type: Any.Type) -> Bool {
  unsafeBitCast(type, to: UnsafePointer<Int>.self).pointee == 0x201
}

/// Dictionaries with `Int` keys keep integer keys in Lua (`Codable` would make them strings).
protocol LuaIntKeyedEncodable {
  func encodeEntries(_ encode: (Int, any Encodable) throws -> Void) rethrows
}

extension Dictionary: LuaIntKeyedEncodable where Key == Int, Value: Encodable {
  func encodeEntries(_ encode: (Int, any Encodable) throws -> Void) rethrows {
    for (key, value) in self { try encode(key, value) }
  }
}

protocol LuaIntKeyedDecodable {
  static func decodeEntries(
    keys: [Int], _ decode: (Int, any Decodable.Type) throws -> any Decodable
  ) rethrows -> Self
}

extension Dictionary: LuaIntKeyedDecodable where Key == Int, Value: Decodable {
  static func decodeEntries(
    keys: [Int], _ decode: (Int, any Decodable.Type) throws -> any Decodable
  ) rethrows -> Self {
    var result: [Int: Value] = Dictionary(minimumCapacity: keys.count)
    for key in keys { result[key] = try decode(key, Value.self) as? Value }
    return result
  }
}

/// The synthesized keys of unlabelled associated values, `_0`, `_1`, ...: their position.
func unlabelledPosition(_ key: String) -> Int? {
  guard key.utf8.first == UInt8(ascii: "_"), key.utf8.count > 1 else { return nil }
  return Int(key.dropFirst())
}
