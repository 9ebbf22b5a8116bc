/// Text put in a comment line of generated source: a saved file's header, a written test's
/// first lines. A name in it (a feature's file name) may hold any character, and Lua and Swift
/// both end a line comment at a carriage return as at a line feed: the rest of the name would be
/// code (`w\rerror("x")--.lua`). So every control character, and the Unicode line and paragraph
/// separators, is written as an escape a reader sees (`\r`, `\u{1B}`), and the comment stays
/// one line.
public enum LuaComment {
  /// `text` with each character that could end or garble a comment line escaped.
  ///
  /// ```swift
  /// LuaComment.line("a\rb")  // #"a\rb"#
  /// ```
  public static func line(_ text: some StringProtocol) -> String {
    var result = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\t": result.unicodeScalars.append(scalar)
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\u{0}"..."\u{1F}", "\u{7F}", "\u{85}", "\u{2028}", "\u{2029}":
        result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result
  }
}
