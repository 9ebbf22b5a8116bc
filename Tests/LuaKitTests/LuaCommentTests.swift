import Testing

@testable import LuaKit

/// A comment line of generated source stays one line whatever text is put in it: Lua and Swift
/// end a line comment at a carriage return as at a line feed, and a name with one in it put
/// code in a saved file and in a written test.
@Suite struct LuaCommentTests {
  /// Every Unicode scalar, between two letters: no character a lexer ends a line at, no other
  /// control character; printable text stays as it is.
  @Test func everyScalarLeavesTheCommentOneLine() {
    var escaped = 0
    for value in UInt32(0)...0x10FFFF {
      guard let scalar = Unicode.Scalar(value) else { continue }
      let line = LuaComment.line("a" + String(Character(scalar)) + "b")
      let bad = line.unicodeScalars.contains {
        ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F || $0.value == 0x85
          || $0 == "\u{2028}" || $0 == "\u{2029}"
      }
      #expect(!bad, "U+\(String(value, radix: 16))")
      if bad { return }
      if line != "a" + String(Character(scalar)) + "b" { escaped += 1 }
    }
    #expect(escaped == 32 + 1 + 1 + 2 - 1)  // C0 but tab, DEL, NEL, the two separators
    #expect(LuaComment.line("a\r\nb\u{1B}[2J") == #"a\r\nb\u{1B}[2J"#)
  }

  /// What Lua makes of a header holding every control character followed by code: a comment,
  /// the code never run, the value read back.
  @Test func luaReadsAHeaderOfControlCharactersAsAComment() throws {
    let vm = try LuaVM()
    for value in UInt32(0)..<0x20 {
      let name = "w" + String(Character(Unicode.Scalar(value)!)) + #"error("INJECTED")--"#
      let text = try LuaDataFile.text(of: ["n": 1], header: "The state \(name) saved.")
      let loaded = try vm.evaluate(text)[0]
      #expect(loaded == ["n": 1], "\(value)")
      let read = try LuaDataFile.read(Array(text.utf8), chunkName: "saved.lua")
      #expect(read == ["n": 1], "\(value)")
    }
  }
}
