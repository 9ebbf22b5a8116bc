import ComposableHost
import Testing

/// A line that is no action says what it may have meant: a new user typed `add Dune`, JSON,
/// `{ type = add }` and `{ "add", title = "x" }`, and was told Lua's syntax error, or "a table
/// whose type is nil" (without the line's number: it was refused after the line was read).
@Suite struct ActionLineShapeTests {
  static func refusal(_ line: String) -> String? {
    do {
      _ = try LuaLiteralReader().action(from: line)
      return nil
    } catch {
      return "\(error)"
    }
  }

  @Test(arguments: [
    ("add Dune", #"syntax error: <eof> expected near 'Dune' (a word alone is an action; "#
      + #"with fields, it is a table: { type = "add", ... })"#),
    (#"{"type":"add","title":"J"}"#, #"syntax error: '}' expected near ':' (an action is a "#
      + #"Lua table, not JSON: { type = "add", title = "Dune" })"#),
    (#"{ type = add, title = "z" }"#, #"expected a table with a string type, got one whose "#
      + #"type is nil (type = add reads a variable, nil here: write type = "add")"#),
    (#"{ "add", title = "x" }"#, #"expected a table with a string type, got one whose type "#
      + #"is nil (the type is a field: { type = "add", ... })"#),
    ("{ type = 3 }", "expected a table with a string type, got one whose type is a number"),
    ("{ type = {} }", "expected a table with a string type, got one whose type is a table"),
    ("{ title = 'x' }", "expected a table with a string type, got one whose type is nil"),
  ])
  func aLineThatIsNoActionSaysWhatItMayHaveMeant(line: String, message: String) {
    #expect(
      Self.refusal(line) == "the line is not an action (a word, or a Lua table): \(message)")
  }

  /// Actions are as they were.
  @Test func actionsAreRead() {
    #expect(Self.refusal("increment") == nil)
    #expect(Self.refusal(#"{ type = "add", title = "x" }"#) == nil)
    #expect(Self.refusal(#"  { type = "add" }  "#) == nil)
  }
}
