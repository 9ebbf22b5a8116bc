/// Text from a feature (an error's message, what it raised) written to a terminal: its control
/// characters shown as Lua writes them in a string (`\r`, `\27`), so that an error cannot move
/// the cursor, clear the screen or set colours. Line breaks and tabs stay: a traceback is read
/// line by line.
extension String {
  /// The text with its control characters written as Lua escapes (`\r`, `\27`, `\u{9b}`), line
  /// feeds and tabs kept as they are.
  public var terminalSafe: String {
    guard unicodeScalars.contains(where: Self.isControl) else { return self }
    var safe = ""
    safe.reserveCapacity(utf8.count)
    for scalar in unicodeScalars {
      guard Self.isControl(scalar) else {
        safe.unicodeScalars.append(scalar)
        continue
      }
      switch scalar {
      case "\r": safe += "\\r"
      case "\u{0B}": safe += "\\v"
      case "\u{0C}": safe += "\\f"
      case "\u{08}": safe += "\\b"
      case "\u{07}": safe += "\\a"
      case _ where scalar.value < 0x80: safe += "\\\(scalar.value)"
      default: safe += "\\u{\(String(scalar.value, radix: 16))}"
      }
    }
    return safe
  }

  /// C0 controls but line feed and tab, DEL, and the C1 controls (which some terminals take as
  /// the start of an escape sequence).
  private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    let value = scalar.value
    if value == 0x0A || value == 0x09 { return false }
    return value < 0x20 || value == 0x7F || (0x80...0x9F).contains(value)
  }
}
