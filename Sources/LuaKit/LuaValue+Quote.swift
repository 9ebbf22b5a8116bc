extension LuaValue {
  /// A Lua string literal that Lua reads back as exactly these bytes: text when the bytes are
  /// UTF-8, decimal escapes for the bytes that are not.
  static func quote(_ string: LuaString) -> String {
    var text = LuaText.unlimited
    quote(string, into: &text)
    return text.string
  }

  /// `quote`, written into `text`: a measure stops at its limit, a capped text counts the rest
  /// without making it.
  ///
  /// Escaped: `"` and `\`, the C0 controls and DEL (`\n`, `\t`, `\r`, else three decimal
  /// digits, always three, so that a digit after one is never read into it: byte 127 is
  /// `\127`), and in UTF-8 text the C1 controls U+0080 to U+009F (`\u{9B}`), which some
  /// terminals act on. In bytes that are not UTF-8, every byte from 0x80 up is `\ddd`.
  static func quote(_ string: LuaString, into text: inout LuaText) {
    string.withUnsafeBytes { bytes in
      let isText = UTF8Validation.isValid(bytes)
      text.append(byte: UInt8(ascii: "\""))
      var start = 0  // the first byte not yet written: runs that need no escape go whole
      var index = 0
      while index < bytes.count {
        if !text.counting, index - start >= text.room {  // a measure that will not fit: done
          text.append(bytes: UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
          return
        }
        let byte = bytes[index]
        let escape: String?
        var width = 1
        switch byte {
        case UInt8(ascii: "\""): escape = "\\\""
        case UInt8(ascii: "\\"): escape = "\\\\"
        case 0x0A: escape = "\\n"
        case 0x09: escape = "\\t"
        case 0x0D: escape = "\\r"
        case 0..<0x20, 0x7F: escape = decimalEscape(byte)
        case 0x80...:
          if !isText {
            escape = decimalEscape(byte)
          } else if byte == 0xC2, index + 1 < bytes.count, (0x80...0x9F).contains(bytes[index + 1])
          {
            escape = "\\u{" + String(bytes[index + 1], radix: 16, uppercase: true) + "}"
            width = 2
          } else {
            escape = nil
          }
        default: escape = nil
        }
        guard let escape else {
          index += 1
          continue
        }
        text.append(bytes: UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        text.append(escape)
        index += width
        start = index
      }
      text.append(bytes: UnsafeRawBufferPointer(rebasing: bytes[start..<bytes.count]))
      text.append(byte: UInt8(ascii: "\""))
    }
  }

  private static func decimalEscape(_ byte: UInt8) -> String {
    let digits = String(byte)
    return "\\" + String(repeating: "0", count: 3 - digits.count) + digits
  }
}
