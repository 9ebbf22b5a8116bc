import ComposableLua
import Foundation
import TestSupport
import Testing

/// A Lua test's name and a failure's message keep their text whatever bytes they hold: a stray
/// byte that is not UTF-8 is shown as U+FFFD, the rest as written (it was `test 2`, and a
/// failure a dump of its table).
@Suite struct LuaTestBytesTests {
  @Test func aNameAndAMessageWithAStrayByteKeepTheirText() async throws {
    let directory = try makeTemporaryDirectory("lua-test-bytes")
    defer { try? FileManager.default.removeItem(at: directory) }
    let results = await LuaTestRunner().run(
      source: """
        it("named \\255 here", function() error("broken \\255 message", 0) end)
        """, name: "bytes_test.lua", directory: directory)
    #expect(results.count == 1)
    #expect(results.first?.name.contains("named \u{FFFD} here") == true, "\(results)")
    guard case let .failed(messages)? = results.first?.outcome else {
      Issue.record("expected a failure: \(results)")
      return
    }
    #expect(messages.joined().contains("broken \u{FFFD} message"), "\(messages)")
  }
}
