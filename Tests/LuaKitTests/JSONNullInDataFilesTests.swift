import Testing

@testable import LuaKit

/// json.null is no plain data: a data file refuses it, written and read. A file for this
/// runtime's own reading (a session, whose actions hold HTTP responses) asks for it, and then
/// holds it as the words `json.null`, at every place a value goes but a key.
@Suite struct JSONNullInDataFilesTests {
  static let value: LuaValue = [
    "a": .jsonNull, "list": [1, .jsonNull, "x"], "deep": ["in": ["er": .jsonNull]],
  ]

  @Test func writtenAndReadBackWhenAskedFor() throws {
    let text = try LuaDataFile.text(of: Self.value, jsonNull: true)
    #expect(text.contains("a = json.null"), "\(text)")
    #expect(text.contains("{ 1, json.null, \"x\" }"), "\(text)")
    let read = try LuaDataFile.read(Array(text.utf8), chunkName: "s.lua", jsonNull: true)
    #expect(read == Self.value)
    // Shared tables go through the statements' form, json.null with them.
    let leaf: LuaValue = [.jsonNull]
    let shared: LuaValue = ["x": leaf, "y": leaf]
    let sharedText = try LuaDataFile.text(of: shared, jsonNull: true)
    #expect(
      try LuaDataFile.read(Array(sharedText.utf8), chunkName: "s.lua", jsonNull: true) == shared)
  }

  @Test func refusedWhenNotAskedFor() throws {
    #expect(throws: LuaError.self) { try LuaDataFile.text(of: Self.value) }
    let text = try LuaDataFile.text(of: Self.value, jsonNull: true)
    #expect {
      try LuaDataFile.read(Array(text.utf8), chunkName: "s.lua")
    } throws: { error in
      "\(error)".contains(
        "found 'json': json.null (JSON's null, as decoded) is not data this file holds")
    }
  }

  /// Only the two words: nothing else of `json`, and not as a key.
  @Test(arguments: [
    ("return json", "'.null' after json"),
    ("return json.decode", "'null' after json."),
    ("return { json.nul }", "'null' after json."),
    ("return { [json.null] = 1 }", "a table key cannot be json.null"),
    ("return json . null ()", "found '('"),
    ("return { jsonx = json }", "'.null' after json"),
  ])
  func nothingElseOfJSONIsRead(source: String, says: String) {
    #expect {
      try LuaDataFile.read(Array(source.utf8), chunkName: "s.lua", jsonNull: true)
    } throws: { error in
      "\(error)".contains(says)
    }
  }
}
