import Composable
import ComposableHost
import ComposableLua
import Foundation
import LuaKit
import Testing

/// An input over many lines is read in time linear in its length: Lua's parser is asked whether
/// it is complete only once nothing is left open (a bracket, a long string, a long comment), not
/// after every line. An input that grows past 16 MiB still open is dropped with an error.
@Suite struct ReplLongInputTests {
  typealias Harness = ReplSessionTests.Harness

  @Test func aPastedTableOf50000LinesIsOneAction() async throws {
    let repl = try Harness()
    var reply = await repl.session.handle(#"{ type = "add", item = {"#)
    for index in 1...50_000 {
      reply = await repl.session.handle("  \(index), -- item \(index) ]] ) {")
      #expect(reply == .needsMore || index < 50_000)
      if reply != .needsMore { break }
    }
    #expect(reply == .needsMore)
    reply = await repl.session.handle("} }")
    #expect(reply == .ready)
    let (text, _) = await repl.type("= #state.items[1], state.items[1][50000]")
    #expect(text == "50000\n50000")
  }

  @Test func longStringsAndCommentsHideTheirBrackets() async throws {
    let repl = try Harness()
    let lines = [
      #"{ type = "add", item = [==["#,  // a long string: its brackets are text
      "{ ( ]] ]=] ",
      #"]==] --[[ a long comment { "#,
      "} ( ]] }",
    ]
    var replies: [ReplSession.Reply] = []
    for line in lines { replies.append(await repl.session.handle(line)) }
    #expect(replies == [.needsMore, .needsMore, .needsMore, .ready])
    #expect(await repl.type("= state.items[1]").0 == #""{ ( ]] ]=] \n""#)
  }

  /// What the scanner cannot see (a function without its `end`) the parser still says.
  @Test func aFunctionLeftOpenStillContinues() async throws {
    let repl = try Harness()
    #expect(await repl.session.handle("= (function()") == .needsMore)
    #expect(await repl.session.handle("return 7") == .needsMore)
    #expect(await repl.type("end)()").0 == "7")
  }

  @Test func anInputLeftOpenPast16MiBIsDropped() async throws {
    let repl = try Harness()
    #expect(await repl.session.handle("{ type = \"add\", item = [[") == .needsMore)
    let line = String(repeating: "x", count: 1 << 20)
    var reply = ReplSession.Reply.needsMore
    var lines = 0
    while reply == .needsMore, lines < 40 {
      reply = await repl.session.handle(line)
      lines += 1
    }
    #expect(reply == .ready && lines == 16)
    #expect(await repl.session.prompt == "> ")
    #expect(await repl.type("increment").0 == "  − count = 0\n  + count = 1")
  }
}
