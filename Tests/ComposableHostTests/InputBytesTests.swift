import ComposableHost
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// An input line's bytes reach the action as they are: through `composable run` (a real
/// process, its standard input bytes), the REPL and the reader, what is not UTF-8 and NUL
/// included. A CR before the LF ends the line, as `lua5.4`'s lexer reads it (a line break),
/// so a bare word stays a word; a CR inside a string literal is what Lua makes of it.
@Suite struct InputBytesTests {
  static let source = """
    return {
      initial_state = function() return { n = 0 } end,
      reduce = function(state, action)
        if action.type == "t" then
          state.len = #action.text
          state.codes = table.concat({ string.byte(action.text, 1, -1) }, ",")
        elseif action.type == "w" then
          state.n = state.n + 1
        end
      end,
    }
    """

  /// Every byte a Lua quoted string takes as it is: all but the line breaks, the quote and the
  /// backslash. NUL, the other control bytes, and 0x80-0xFF (never UTF-8 in this order).
  static let raw: [UInt8] = (0...255).map(UInt8.init).filter { ![0x0A, 0x0D, 0x22, 0x5C].contains($0) }

  /// `{ type = "t", text = "<raw>\r" }`: the raw bytes, then a CR written as Lua's escape.
  static var line: [UInt8] {
    Array(#"{ type = "t", text = ""#.utf8) + raw + Array(#"\r" }"#.utf8)
  }

  static var expectedCodes: String { (raw + [13]).map { String($0) }.joined(separator: ",") }

  @Test func theReaderKeepsEveryByte() throws {
    let action = try LuaLiteralReader().action(from: Self.line)
    #expect(action.text == .string(LuaString(bytes: Self.raw + [13])))
    // A bare word, surrounded by spaces and tabs, is the word; a word that is not UTF-8 is Lua's
    // to read (and refuse, as lua5.4 would).
    #expect(try LuaLiteralReader().action(from: Array(" \tincrement \t".utf8)) == "increment")
    #expect(throws: NotAnAction.self) { try LuaLiteralReader().action(from: [0x69, 0xFF]) }
  }

  @Test func composableRunHandsTheBytesToTheReducer() throws {
    let folder = try makeTemporaryDirectory("input-bytes")
    defer { try? FileManager.default.removeItem(at: folder) }
    let feature = folder.appendingPathComponent("bytes.lua")
    try Data(Self.source.utf8).write(to: feature)
    let input =
      Self.line + Array("\r\nw\r\n".utf8)
      + Array(#"{ type = "t", text = "p"#.utf8) + [0x0D] + Array(#"q" }"#.utf8) + [0x0A]
      + Array("w".utf8)  // the last line needs no line feed
    let outcome = try Command.run(
      ["run", feature.path, "--data", folder.appendingPathComponent("data").path, "--wait", "0"],
      inputBytes: input)
    // The line with a raw CR inside a string is no action (below): the run says so at its end.
    #expect(outcome.status == 2, "\(outcome.errors)")
    #expect(
      outcome.errors.hasSuffix("1 line was not an action; the other lines ran (exit status 2)\n"))
    #expect(outcome.output.contains("+ codes = \"\(Self.expectedCodes)\""), "\(outcome.output)")
    #expect(outcome.output.contains("+ len = \(Self.raw.count + 1)"))
    // CRLF: the word is a word, twice (once without any line feed at all).
    #expect(outcome.output.contains("− n = 0\n  + n = 1\n"))
    #expect(outcome.output.contains("− n = 1\n  + n = 2\n"))
    // A raw CR inside a string literal: what lua5.4 says of it.
    #expect(
      outcome.errors.contains(
        "error: line 3 of the input: the line is not an action (a word, or a Lua table): syntax "
          + "error: unfinished string near '\"p'"), "\(outcome.errors)")
  }

  /// `composable repl` with its input piped reads bytes the same way.
  @Test func composableReplHandsTheBytesToTheReducer() throws {
    let folder = try makeTemporaryDirectory("input-bytes-repl")
    defer { try? FileManager.default.removeItem(at: folder) }
    let feature = folder.appendingPathComponent("bytes.lua")
    try Data(Self.source.utf8).write(to: feature)
    let outcome = try Command.run(
      ["repl", feature.path, "--data", folder.appendingPathComponent("data").path],
      inputBytes: Self.line + Array("\r\nw\r\n:q\r\n".utf8))
    #expect(outcome.status == 0, "\(outcome.errors)")
    #expect(outcome.output.contains("+ codes = \"\(Self.expectedCodes)\""), "\(outcome.output)")
    #expect(outcome.output.contains("+ n = 1"))
  }

  @Test func theREPLHandsTheBytesToTheReducer() async throws {
    let harness = try ReplSessionTests.Harness(source: Self.source)
    _ = await harness.session.handle(bytes: Self.line)
    await harness.session.settle()
    let state = try harness.session.feature.state()
    #expect(state.codes == .string(LuaString(Self.expectedCodes)))
    #expect(state.len == .integer(Self.raw.count + 1))
    // An open table goes on on the next line, the bytes of both kept.
    #expect(await harness.session.handle(bytes: Array(#"{ type = "t","#.utf8)) == .needsMore)
    _ = await harness.session.handle(bytes: Array(#"text = ""#.utf8) + [0xFF, 0x00] + Array(#"" }"#.utf8))
    await harness.session.settle()
    #expect(try harness.session.feature.state().codes == "255,0")
    // `=` expressions read bytes too: one byte 0xFF, one NUL.
    harness.printed.withLock { $0 = [] }
    _ = await harness.session.handle(bytes: Array("= #\"".utf8) + [0xFF, 0x00] + Array("\"".utf8))
    await harness.session.settle()
    #expect(harness.printed.withLock { $0 } == ["2"])
  }
}
