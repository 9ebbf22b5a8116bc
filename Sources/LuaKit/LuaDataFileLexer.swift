/// The tokens of a data file, read as Lua 5.4's lexer reads them (llex.c): names, numerals,
/// every form of string, comments, and the symbols, whole (`..`, `//`, `==`), so that an error
/// names what it found. Nothing here decides what is allowed: `LuaDataFileReader` does.
struct LuaDataFileLexer {
  enum Token: Equatable {
    case name(String)
    case number(LuaValue)
    case string([UInt8])
    /// A symbol of Lua's (`{`, `=`, `..`, `~=`, ...).
    case symbol(String)
    case end
  }

  /// Where a token starts: 1-based, the column in bytes.
  struct Position {
    var line: Int
    var column: Int
  }

  private let bytes: [UInt8]
  private let chunkName: String
  private var index = 0
  private var line = 1
  private var lineStart = 0

  init(bytes: [UInt8], chunkName: String) {
    self.bytes = bytes
    self.chunkName = chunkName
    // A UTF-8 byte order mark that an editor put first is skipped, as `lua5.4` skips it in a
    // file it loads; columns on the first line still count its bytes.
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
  }

  /// `chunk:line:column: message`, as a syntax error.
  func error(_ message: String, at position: Position, atEnd: Bool = false) -> LuaError {
    .syntax(
      message: "\(chunkName):\(position.line):\(position.column): \(message)",
      incompleteInput: atEnd)
  }

  private var position: Position { Position(line: line, column: index - lineStart + 1) }
  private var current: UInt8? { index < bytes.count ? bytes[index] : nil }
  private func peek(_ offset: Int) -> UInt8? {
    index + offset < bytes.count ? bytes[index + offset] : nil
  }

  /// The next token and where it starts.
  mutating func next() throws(LuaError) -> (Token, Position) {
    while let byte = current {
      switch byte {
      case 0x0A, 0x0D: newline()
      case 0x20, 0x09, 0x0B, 0x0C: index += 1
      case UInt8(ascii: "-") where peek(1) == UInt8(ascii: "-"): try comment()
      default:
        let start = position
        return (try token(startingWith: byte, at: start), start)
      }
    }
    return (.end, position)
  }

  /// Past a line break: `\n`, `\r`, `\r\n` or `\n\r`, one line each, as Lua counts them.
  private mutating func newline() {
    let first = bytes[index]
    index += 1
    if let second = current, second == 0x0A || second == 0x0D, second != first { index += 1 }
    line += 1
    lineStart = index
  }

  private mutating func comment() throws(LuaError) {
    let start = position
    index += 2
    if current == UInt8(ascii: "["), let level = longBracketLevel() {
      _ = try longString(level: level, start: start, what: "comment")
      return
    }
    while let byte = current, byte != 0x0A, byte != 0x0D { index += 1 }
  }

  private mutating func token(
    startingWith byte: UInt8, at start: Position
  ) throws(LuaError)
    -> Token
  {
    switch byte {
    case UInt8(ascii: "\""), UInt8(ascii: "'"): return .string(try shortString(start: start))
    case UInt8(ascii: "["):
      if let level = longBracketLevel() {
        return .string(try longString(level: level, start: start, what: "string"))
      }
      if peek(1) == UInt8(ascii: "=") {
        throw error("invalid long string delimiter", at: start)
      }
      index += 1
      return .symbol("[")
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try numeral(start: start))
    case UInt8(ascii: "."):
      if let next = peek(1), Self.isDigit(next) { return .number(try numeral(start: start)) }
      return .symbol(symbol() ?? ".")
    case _ where Self.isNameStart(byte):
      let first = index
      while let byte = current, Self.isNameStart(byte) || Self.isDigit(byte) { index += 1 }
      return .name(String(decoding: bytes[first..<index], as: UTF8.self))
    default:
      guard let found = symbol() else {
        let shown = (0x21...0x7E).contains(byte) ? "'\(UnicodeScalar(byte))'" : "byte \(byte)"
        throw error("unexpected symbol: \(shown)", at: start)
      }
      return .symbol(found)
    }
  }

  /// Lua's symbols of two bytes, each as its bytes in one number.
  private static let pairs: Set<UInt16> = Set(
    ["==", "~=", "<=", ">=", "<<", ">>", "//", "::", ".."].map { symbol in
      let bytes = Array(symbol.utf8)
      return UInt16(bytes[0]) << 8 | UInt16(bytes[1])
    })
  private static let singles: Set<UInt8> = Set("+-*/%^#&~|<>=(){}];:,.".utf8)

  /// The longest of Lua's symbols the text goes on with, consumed; nil for none.
  private mutating func symbol() -> String? {
    let byte = bytes[index]
    if byte == UInt8(ascii: "."), peek(1) == byte, peek(2) == byte {
      index += 3
      return "..."
    }
    if let next = peek(1), Self.pairs.contains(UInt16(byte) << 8 | UInt16(next)) {
      index += 2
      return String(UnicodeScalar(byte)) + String(UnicodeScalar(next))
    }
    guard Self.singles.contains(byte) else { return nil }
    index += 1
    return String(UnicodeScalar(byte))
  }

  // MARK: Numerals

  /// A numeral as Lua's `read_numeral` takes it (digits, dots, exponents with a sign, and a
  /// letter after it, which makes it malformed), converted as `luaO_str2num` converts it.
  private mutating func numeral(start: Position) throws(LuaError) -> LuaValue {
    let first = index
    var exponent: (UInt8, UInt8) = (UInt8(ascii: "e"), UInt8(ascii: "E"))
    if current == UInt8(ascii: "0"), let x = peek(1),
      x == UInt8(ascii: "x") || x == UInt8(ascii: "X")
    {
      index += 2
      exponent = (UInt8(ascii: "p"), UInt8(ascii: "P"))
    }
    while let byte = current {
      if byte == exponent.0 || byte == exponent.1 {
        index += 1
        if let sign = current, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { index += 1 }
      } else if Self.isHexDigit(byte) || byte == UInt8(ascii: ".") {
        index += 1
      } else {
        break
      }
    }
    if let byte = current, Self.isNameStart(byte) { index += 1 }
    let text = String(decoding: bytes[first..<index], as: UTF8.self)
    guard let value = Self.number(text) else {
      throw error("malformed number near '\(text)'", at: start)
    }
    return value
  }

  /// `luaO_str2num` on what the lexer read (no sign, no spaces): an integer when it is one that
  /// fits (a hexadecimal one wraps around), else a float, else nil.
  static func number(_ text: String) -> LuaValue? {
    let utf8 = Array(text.utf8)
    let isHex =
      utf8.count > 2 && utf8[0] == UInt8(ascii: "0") && (utf8[1] | 0x20) == UInt8(ascii: "x")
    if isHex, utf8[2...].allSatisfy(isHexDigit) {
      var value: UInt64 = 0
      for digit in utf8[2...] { value = value &* 16 &+ UInt64(hexValue(digit)) }
      return .integer(Int(bitPattern: UInt(value)))
    }
    if !isHex, !utf8.isEmpty, utf8.allSatisfy(isDigit) {
      var value = 0
      var overflow = false
      for digit in utf8 {
        let (times, timesOverflow) = value.multipliedReportingOverflow(by: 10)
        let (sum, sumOverflow) = times.addingReportingOverflow(Int(digit - UInt8(ascii: "0")))
        if timesOverflow || sumOverflow {
          overflow = true
          break
        }
        value = sum
      }
      if !overflow { return .integer(value) }  // else a float, as Lua reads it
    }
    // What strtod takes of these bytes: Swift's `Double(_:)` is strtod in the C locale. The
    // lexer passed no letters but x, p, e (and one more that makes the text malformed), so
    // `inf` and `nan` never reach it, as `l_str2d` refuses them.
    if utf8.contains(where: { ($0 | 0x20) == UInt8(ascii: "n") }) { return nil }
    guard let float = Double(text) else { return nil }
    return .number(float)
  }

  // MARK: Strings

  /// A string in quotes, its escapes read as Lua reads them.
  private mutating func shortString(start: Position) throws(LuaError) -> [UInt8] {
    let quote = bytes[index]
    index += 1
    var result: [UInt8] = []
    while true {
      guard let byte = current else {
        throw error("unfinished string", at: start, atEnd: true)
      }
      switch byte {
      case quote:
        index += 1
        return result
      case 0x0A, 0x0D:
        throw error("unfinished string (a line break in quotes is written \\n)", at: start)
      case UInt8(ascii: "\\"):
        try escape(into: &result, stringStart: start)
      default:
        result.append(byte)
        index += 1
      }
    }
  }

  private mutating func escape(into result: inout [UInt8], stringStart: Position) throws(LuaError) {
    let at = position
    index += 1
    guard let byte = current else {
      throw error("unfinished string", at: stringStart, atEnd: true)
    }
    let simple: [UInt8: UInt8] = [
      UInt8(ascii: "a"): 0x07, UInt8(ascii: "b"): 0x08, UInt8(ascii: "f"): 0x0C,
      UInt8(ascii: "n"): 0x0A, UInt8(ascii: "r"): 0x0D, UInt8(ascii: "t"): 0x09,
      UInt8(ascii: "v"): 0x0B, UInt8(ascii: "\\"): 0x5C, UInt8(ascii: "\""): 0x22,
      UInt8(ascii: "'"): 0x27,
    ]
    if let replaced = simple[byte] {
      result.append(replaced)
      index += 1
      return
    }
    switch byte {
    case 0x0A, 0x0D:
      newline()
      result.append(0x0A)
    case UInt8(ascii: "x"):
      index += 1
      var value: UInt8 = 0
      for _ in 0..<2 {
        guard let digit = current, Self.isHexDigit(digit) else {
          throw error("hexadecimal digit expected in \\x escape", at: at)
        }
        value = value * 16 + Self.hexValue(digit)
        index += 1
      }
      result.append(value)
    case UInt8(ascii: "z"):
      index += 1
      while let space = current, [0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D].contains(space) {
        if space == 0x0A || space == 0x0D { newline() } else { index += 1 }
      }
    case UInt8(ascii: "u"):
      index += 1
      guard current == UInt8(ascii: "{") else { throw error("missing '{' in \\u{xxxx}", at: at) }
      index += 1
      var value: UInt32 = 0
      var digits = 0
      while let digit = current, Self.isHexDigit(digit) {
        guard value <= 0x7FF_FFFF else { throw error("UTF-8 value too large", at: at) }
        value = value * 16 + UInt32(Self.hexValue(digit))
        digits += 1
        index += 1
      }
      guard digits > 0 else { throw error("hexadecimal digit expected in \\u{xxxx}", at: at) }
      guard current == UInt8(ascii: "}") else { throw error("missing '}' in \\u{xxxx}", at: at) }
      index += 1
      result += Self.utf8(value)
    case UInt8(ascii: "0")...UInt8(ascii: "9"):
      var value = 0
      var digits = 0
      while digits < 3, let digit = current, Self.isDigit(digit) {
        value = value * 10 + Int(digit - UInt8(ascii: "0"))
        digits += 1
        index += 1
      }
      guard value <= 255 else { throw error("decimal escape too large", at: at) }
      result.append(UInt8(value))
    default:
      throw error("invalid escape sequence '\\\(Self.shown(byte))'", at: at)
    }
  }

  /// Lua's `luaO_utf8esc`: a code point up to 0x7FFFFFFF in up to six bytes.
  static func utf8(_ value: UInt32) -> [UInt8] {
    if value < 0x80 { return [UInt8(value)] }
    var bytes: [UInt8] = []
    var value = value
    var limit: UInt32 = 0x3F  // the most the first byte can hold
    repeat {
      bytes.append(UInt8(0x80 | (value & 0x3F)))
      value >>= 6
      limit >>= 1
    } while value > limit
    bytes.append(UInt8((~limit << 1) & 0xFF) | UInt8(value))
    return bytes.reversed()
  }

  /// At `[`: the number of `=` of a long bracket `[==[` (consumed), or nil (nothing consumed).
  private mutating func longBracketLevel() -> Int? {
    var level = 0
    while peek(1 + level) == UInt8(ascii: "=") { level += 1 }
    guard peek(1 + level) == UInt8(ascii: "[") else { return nil }
    index += level + 2
    return level
  }

  /// The contents of a long string or comment up to `]` `level` `=` `]`: a line break first is
  /// skipped, every line break inside is `\n`.
  private mutating func longString(
    level: Int, start: Position, what: String
  ) throws(LuaError) -> [UInt8] {
    var result: [UInt8] = []
    if let byte = current, byte == 0x0A || byte == 0x0D { newline() }
    while true {
      guard let byte = current else {
        throw error("unfinished long \(what)", at: start, atEnd: true)
      }
      switch byte {
      case UInt8(ascii: "]"):
        var equals = 0
        while peek(1 + equals) == UInt8(ascii: "=") { equals += 1 }
        if equals == level, peek(1 + equals) == UInt8(ascii: "]") {
          index += level + 2
          return result
        }
        result.append(byte)
        index += 1
      case 0x0A, 0x0D:
        newline()
        result.append(0x0A)
      default:
        result.append(byte)
        index += 1
      }
    }
  }

  // MARK: Bytes

  static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
  static func isHexDigit(_ byte: UInt8) -> Bool {
    isDigit(byte) || (0x61...0x66).contains(byte | 0x20)
  }
  static func hexValue(_ byte: UInt8) -> UInt8 {
    isDigit(byte) ? byte - 0x30 : (byte | 0x20) - 0x61 + 10
  }
  static func isNameStart(_ byte: UInt8) -> Bool {
    (0x61...0x7A).contains(byte | 0x20) || byte == UInt8(ascii: "_")
  }
  static func shown(_ byte: UInt8) -> String {
    (0x21...0x7E).contains(byte) ? String(UnicodeScalar(byte)) : "\\\(byte)"
  }
}
