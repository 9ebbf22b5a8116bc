/// A path under a root directory (a feature's data directory, a test's fixture folder, the
/// folder of a session file), checked once, when it is made, before any system call sees it.
///
/// It is made from the bytes as given (a Lua string is bytes), never from a lossy conversion,
/// and refuses what could lead a system call anywhere but under the root or surprise it:
/// - an empty path, an absolute one, a `..` component;
/// - a control byte (0x00-0x1F, 0x7F): a NUL would cut the C string the kernel is given after
///   the checks were made on the whole, and the others have no business in a file name (nor
///   have the C1 control characters, U+0080-U+009F, which a terminal may obey in a message);
/// - bytes that are not UTF-8: a path is text, so that it reads back exactly in Lua, in Swift
///   and in a message;
/// - more than `maximumLength` bytes, or a component of more than `maximumComponentLength`.
///
/// `.` components and repeated or trailing slashes are dropped: `./notes//a.txt` is
/// `notes/a.txt`. A path of `.` alone names the root itself (`root`), for listing it.
///
/// The error (`DataPath.Invalid`) names the offending byte and its position; the caller adds
/// the field it came from (`effect.file.write: path: ...`).
public struct DataPath: Hashable, Sendable, CustomStringConvertible {
  /// The components from the root down: each non-empty, neither `.` nor `..`, with no `/`.
  public let components: [String]

  /// The kernel's `PATH_MAX`: a longer path could not be named in one system call.
  public static let maximumLength = 4096
  /// The kernel's `NAME_MAX`: no file system takes a longer name.
  public static let maximumComponentLength = 255

  /// The root itself.
  public static let root = DataPath(checked: [])

  /// Whether this is the root itself (no components), as `DataPath.root` and the path `.` are.
  public var isRoot: Bool { components.isEmpty }

  /// The path as text, components joined by `/` (`.` for the root).
  public var description: String { isRoot ? "." : components.joined(separator: "/") }

  /// The last component (nil for the root).
  public var name: String? { components.last }

  private init(checked components: [String]) { self.components = components }

  /// Checks `bytes` as a path under a root.
  ///
  /// ```swift
  /// let path = try DataPath(validating: Array("notes/today.txt".utf8))
  /// ```
  public init(validating bytes: some Collection<UInt8>) throws(Invalid) {
    let bytes = Array(bytes)
    guard bytes.count <= Self.maximumLength else {
      throw Invalid(
        bytes, "it is \(bytes.count) bytes long; a path may have at most \(Self.maximumLength)")
    }
    if let offset = bytes.firstIndex(where: { $0 < 0x20 || $0 == 0x7F }) {
      throw Invalid(
        bytes,
        "byte \(offset + 1) is \(Self.name(ofControl: bytes[offset])), a control byte; "
          + "a path holds none")
    }
    guard let text = String(validating: bytes, as: UTF8.self) else {
      let offset = Self.firstOffsetNotUTF8(bytes)
      throw Invalid(
        bytes,
        "byte \(offset + 1) (\(Self.hex(bytes[offset]))) is not UTF-8; a path is UTF-8 text")
    }
    // The C1 controls (U+0080-U+009F) too: a terminal may act on them as on ESC sequences.
    if let scalar = text.unicodeScalars.first(where: { (0x80...0x9F).contains($0.value) }) {
      let offset = text.unicodeScalars[..<text.unicodeScalars.firstIndex(of: scalar)!]
        .reduce(0) { $0 + UTF8.width($1) }
      throw Invalid(
        bytes,
        "bytes \(offset + 1) and \(offset + 2) are U+00\(Self.hex(UInt8(scalar.value)).dropFirst(2)), "
          + "a control character; a path holds none")
    }
    guard !bytes.isEmpty else { throw Invalid(bytes, "the path is empty") }
    guard bytes.first != UInt8(ascii: "/") else {
      throw Invalid(bytes, "it is absolute; give a path relative to the directory")
    }
    // Split on the byte `/`, as the kernel does: Swift's Characters are grapheme clusters, and
    // a `/` followed by a combining mark or a joiner (`../\u{200D}x`) is one Character with it,
    // so a split on Characters kept a `/` inside a component for the kernel to follow (out of
    // the root, an attacker's finding). `.` and `..` are compared as bytes too.
    var components: [String] = []
    for component in bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true) {
      if component.elementsEqual([0x2E]) { continue }
      guard !component.elementsEqual([0x2E, 0x2E]) else {
        throw Invalid(bytes, "'..' is refused; the path must stay under the directory")
      }
      let length = component.count
      guard length <= Self.maximumComponentLength else {
        throw Invalid(
          bytes,
          "a name in it is \(length) bytes long; a name may have at most "
            + "\(Self.maximumComponentLength)")
      }
      // Whole UTF-8 (checked above) cut at an ASCII byte: each piece is whole UTF-8 too.
      components.append(String(decoding: component, as: UTF8.self))
    }
    self.init(checked: components)
  }

  /// Checks `text` as a path under a root (its UTF-8 bytes, exactly).
  ///
  /// (Labelled: `DataPath("...")` with a literal is the literal itself, checked as a literal
  /// is, and an unlabelled initializer from a string would read the same.)
  ///
  /// ```swift
  /// let path = try DataPath(validating: "./notes//today.txt")  // notes/today.txt
  /// ```
  public init(validating text: String) throws(Invalid) {
    try self.init(validating: text.utf8)
  }

  /// This path with `suffix` added to its last name (`todos.lua` + `.corrupt-1` gives
  /// `todos.lua.corrupt-1`), checked as any path is.
  public func appendingToName(_ suffix: String) throws(Invalid) -> DataPath {
    try DataPath(validating: description + suffix)
  }

  /// Why bytes are not a `DataPath`: the path, quoted (control and non-UTF-8 bytes escaped as
  /// Lua escapes them, a long path cut), and what is wrong with it.
  public struct Invalid: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong with the path, in words (`'..' is refused; the path must stay under ...`).
    public let reason: String
    /// The path as given, quoted as a Lua string literal: escaped, and cut when it is long.
    public let quoted: String

    init(_ bytes: [UInt8], _ reason: String) {
      self.reason = reason
      quoted = DataPath.quote(bytes)
    }

    public var description: String { "\(quoted): \(reason)" }
  }

  // MARK: Messages

  /// How many bytes of a path a message quotes: enough to recognize it, never a megabyte.
  static let quotedLength = 80

  /// `bytes` as a Lua string literal, as LuaKit quotes one: printable ASCII and UTF-8 text as
  /// they are, `"` and `\` escaped, a line feed, tab and carriage return by name, every other
  /// byte as `\ddd` (which Lua reads back). Cut after `quotedLength` bytes, saying how many
  /// more there are, unless there are no more than that note would take.
  static func quote(_ bytes: [UInt8]) -> String {
    let past = bytes.count - quotedLength
    let shown = past <= "… \(past) more bytes".utf8.count ? bytes[...] : bytes.prefix(quotedLength)
    var text = "\""
    var index = shown.startIndex
    while index < shown.endIndex {
      let byte = shown[index]
      if byte >= 0x80, let (character, length) = utf8Character(in: shown, at: index),
        !character.unicodeScalars.contains(where: { (0x80...0x9F).contains($0.value) })
      {
        text += character
        index += length
        continue
      }
      switch byte {
      case UInt8(ascii: "\""): text += "\\\""
      case UInt8(ascii: "\\"): text += "\\\\"
      case 0x0A: text += "\\n"
      case 0x09: text += "\\t"
      case 0x0D: text += "\\r"
      case 0x20..<0x7F: text += String(UnicodeScalar(byte))
      // Three digits always, as LuaKit quotes: `\1` before a digit would read as another byte.
      default: text += "\\" + String(repeating: "0", count: 3 - String(byte).count) + String(byte)
      }
      index += 1
    }
    text += "\""
    if bytes.count > shown.count { text += "… \(bytes.count - shown.count) more bytes" }
    return text
  }

  /// The UTF-8 character that starts at `index` and its length, if a valid one does.
  private static func utf8Character(
    in bytes: ArraySlice<UInt8>, at index: Int
  ) -> (String, Int)? {
    let lead = bytes[index]
    let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 0
    guard length > 0, index + length <= bytes.endIndex,
      let character = String(validating: bytes[index..<index + length], as: UTF8.self)
    else { return nil }
    return (character, length)
  }

  /// The offset of the first byte that does not start or continue a valid UTF-8 character.
  package static func firstOffsetNotUTF8(_ bytes: [UInt8]) -> Int {
    var index = 0
    while index < bytes.count {
      if bytes[index] < 0x80 {
        index += 1
        continue
      }
      guard let (_, length) = utf8Character(in: bytes[...], at: index) else { return index }
      index += length
    }
    return bytes.count - 1  // not reached for bytes that failed validation
  }

  package static func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return "0x" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0xF)])
  }

  private static func name(ofControl byte: UInt8) -> String {
    switch byte {
    case 0x00: return "0x00 (NUL)"
    case 0x09: return "0x09 (tab)"
    case 0x0A: return "0x0A (line feed)"
    case 0x0D: return "0x0D (carriage return)"
    case 0x1B: return "0x1B (escape)"
    case 0x7F: return "0x7F (delete)"
    default: return hex(byte)
    }
  }
}

extension DataPath: ExpressibleByStringLiteral {
  /// A path written in the program's own source (`"notes.txt"`): checked as any path is, and a
  /// literal that is not a valid path is the program's mistake, which stops it.
  ///
  /// ```swift
  /// let path: DataPath = "notes/today.txt"
  /// ```
  public init(stringLiteral text: String) {
    do { try self.init(validating: text) } catch {
      preconditionFailure("\(error)")
    }
  }
}
