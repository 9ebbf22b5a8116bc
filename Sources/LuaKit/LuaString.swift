/// A Lua string: bytes, which are usually but not always UTF-8.
///
/// Lua strings carry any bytes, so a snapshot keeps them as bytes and decoding into a Swift
/// `String` is where invalid UTF-8 becomes an error.
///
/// Up to 15 bytes are kept inline, as Swift's own `String` keeps a small string: the names and
/// tags of an action are short, and a short string read from Lua or copied costs no allocation
/// and no reference count (an atomic operation, about 5 ns on these machines, several times
/// over for each action sent as a `LuaValue`). Longer ones share one array between copies.
public struct LuaString: Hashable, Sendable, Comparable {
  /// Always `.small` up to `SmallBytes.capacity` bytes, so that equal strings are stored alike
  /// (equality and hashing compare the storage).
  private var storage: Storage

  private enum Storage: Hashable, Sendable {
    case small(SmallBytes)
    case large([UInt8])
  }

  /// The string of `bytes`, exactly as they are: they need not be UTF-8.
  ///
  /// ```swift
  /// let raw = LuaString(bytes: [0x68, 0x69, 0xFF])
  /// raw.string  // nil: 0xFF is not UTF-8
  /// ```
  public init(bytes: [UInt8]) {
    storage = SmallBytes(bytes).map(Storage.small) ?? .large(bytes)
  }

  /// The UTF-8 bytes of `string`.
  ///
  /// ```swift
  /// let title = LuaString("café")
  /// title.count  // 5: bytes, not characters
  /// ```
  public init(_ string: String) {
    var string = string
    storage = string.withUTF8 { utf8 in
      SmallBytes(UnsafeRawBufferPointer(utf8)).map(Storage.small) ?? .large(Array(utf8))
    }
  }

  /// The bytes at `buffer`, copied.
  ///
  /// ```swift
  /// let bytes: [UInt8] = [0x6C, 0x75, 0x61]
  /// let name = bytes.withUnsafeBytes { LuaString(copying: $0) }  // "lua"
  /// ```
  public init(copying buffer: UnsafeRawBufferPointer) {
    storage = SmallBytes(buffer).map(Storage.small) ?? .large(Array(buffer))
  }

  /// The bytes, as an array (made for a short string, which keeps none).
  public var bytes: [UInt8] {
    get {
      switch storage {
      case let .small(small): small.withUnsafeBytes { Array($0) }
      case let .large(bytes): bytes
      }
    }
    set { self = LuaString(bytes: newValue) }
  }

  /// The number of bytes (not characters).
  public var count: Int {
    switch storage {
    case let .small(small): small.count
    case let .large(bytes): bytes.count
    }
  }

  /// Calls `body` with the bytes, without copying them.
  @inline(__always)
  public func withUnsafeBytes<Result>(
    _ body: (UnsafeRawBufferPointer) throws -> Result
  ) rethrows -> Result {
    switch storage {
    case let .small(small): try small.withUnsafeBytes(body)
    case let .large(bytes): try bytes.withUnsafeBytes(body)
    }
  }

  /// A string of up to 15 bytes as two words (nil for a longer one), to compare strings with
  /// by `isInline(_:)`: two word comparisons, for a name a caller keeps to look for.
  static func inlineWords(_ bytes: UnsafeRawBufferPointer) -> (UInt64, UInt64)? {
    SmallBytes(bytes)?.words
  }

  /// Whether this string is the one `inlineWords` gave `words` for.
  @inline(__always)
  func isInline(_ words: (UInt64, UInt64)) -> Bool {
    guard case let .small(small) = storage else { return false }
    return small.words == words
  }

  /// The text, or nil when the bytes are not valid UTF-8.
  public var string: String? { withUnsafeBytes { UTF8Validation.string($0) } }

  /// Orders strings by their bytes, compared as unsigned numbers from the first; a string comes
  /// before any longer one that begins with it. The order holds for any bytes, UTF-8 or not.
  ///
  /// ```swift
  /// LuaString("apple") < LuaString("banana")  // true
  /// LuaString("ab") < LuaString("abc")  // true
  /// ```
  public static func < (lhs: LuaString, rhs: LuaString) -> Bool {
    lhs.withUnsafeBytes { lhs in rhs.withUnsafeBytes { rhs in lhs.lexicographicallyPrecedes(rhs) } }
  }
}

/// Up to 15 bytes in the memory of two words, zeros after them, the count in the last byte.
private struct SmallBytes: Hashable, Sendable {
  static let capacity = 15
  var words: (UInt64, UInt64)

  init?(_ bytes: UnsafeRawBufferPointer) {
    guard bytes.count <= Self.capacity else { return nil }
    var words: (UInt64, UInt64) = (0, 0)
    withUnsafeMutableBytes(of: &words) { memory in
      memory.copyMemory(from: bytes)
      memory[Self.capacity] = UInt8(truncatingIfNeeded: bytes.count)
    }
    self.words = words
  }

  init?(_ bytes: [UInt8]) {
    guard bytes.count <= Self.capacity,
      let small = bytes.withUnsafeBytes({ SmallBytes($0) })  // the pointer used only inside
    else { return nil }
    self = small
  }

  var count: Int { Swift.withUnsafeBytes(of: words) { Int($0[Self.capacity]) } }

  @inline(__always)
  func withUnsafeBytes<Result>(
    _ body: (UnsafeRawBufferPointer) throws -> Result
  ) rethrows
    -> Result
  {
    var words = words
    let count = count
    return try Swift.withUnsafeBytes(of: &words) { try body(.init(rebasing: $0[..<count])) }
  }

  static func == (lhs: SmallBytes, rhs: SmallBytes) -> Bool { lhs.words == rhs.words }

  func hash(into hasher: inout Hasher) {
    hasher.combine(words.0)
    hasher.combine(words.1)
  }
}

extension LuaString: ExpressibleByStringLiteral {
  /// A string written as a literal, kept as its UTF-8 bytes.
  ///
  /// ```swift
  /// let type: LuaString = "increment"
  /// ```
  public init(stringLiteral value: String) { self.init(value) }
}

extension LuaString: CustomStringConvertible {
  /// The text when it is UTF-8; otherwise Lua's decimal escapes for the bytes that are not.
  public var description: String {
    if let string { return string }
    return withUnsafeBytes { bytes in
      bytes.map { $0 < 0x80 ? String(UnicodeScalar($0)) : "\\\($0)" }.joined()
    }
  }
}
