/// A Lua string: bytes, which are usually but not always UTF-8.
///
/// Lua strings carry any bytes, so a snapshot keeps them as bytes and decoding into a Swift
/// `String` is where invalid UTF-8 becomes an error.
public struct LuaString: Hashable, Sendable, Comparable {
  public var bytes: [UInt8]

  public init(bytes: [UInt8]) { self.bytes = bytes }
  public init(_ string: String) { self.bytes = Array(string.utf8) }

  /// The text, or nil when the bytes are not valid UTF-8.
  public var string: String? { bytes.withUnsafeBytes { UTF8Validation.string($0) } }

  public static func < (lhs: LuaString, rhs: LuaString) -> Bool {
    lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
  }
}

extension LuaString: ExpressibleByStringLiteral {
  public init(stringLiteral value: String) { self.init(value) }
}

extension LuaString: CustomStringConvertible {
  /// The text when it is UTF-8; otherwise Lua's decimal escapes for the bytes that are not.
  public var description: String {
    if let string { return string }
    return bytes.map { $0 < 0x80 ? String(UnicodeScalar($0)) : "\\\($0)" }.joined()
  }
}
