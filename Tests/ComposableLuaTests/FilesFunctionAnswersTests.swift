import ComposableLua
import Foundation
import TestSupport
import Testing

/// A Lua test's `files = function(request) ... end` answers each operation; an answer of a shape
/// it does not take fails the operation, saying what it takes. `{ ok = true, contents = "..." }`
/// (what the feature's own read answers with) read as "no file", and a new user's test quietly
/// tested an empty start.
@Suite struct FilesFunctionAnswersTests {
  /// What the reader feature's `read` of `a.txt` ended with, given `answer` as the function's body.
  static func result(answering answer: String) async throws -> [String] {
    let folder = try makeTemporaryDirectory("files-answers")
    defer { try? FileManager.default.removeItem(at: folder) }
    return try await PathsInFixturesTests.failures(
      of: """
        local store = TestStore.new{ feature = "reader", files = function(request) \(answer) end }
        store:send({ type = "read", path = "a.txt" })
        store:receive("done", function(s) s.result = "?" end)
        """, in: folder)
  }

  @Test(arguments: [
    ("return { ok = true, contents = 'x' }", "table"), ("return 42", "42"),
    ("return true", "boolean"),
  ])
  func aReadAnsweredOtherwiseFailsSayingWhatItTakes(answer: String, type: String) async throws {
    let failures = try await Self.result(answering: answer)
    #expect(
      failures.contains {
        $0.contains(
          "files(request) answered the read of a.txt with \(type): it answers a read with the "
            + "contents (a string), nil for no file, or raises to fail it")
      }, "\(failures)")
  }

  /// A string is the contents; nil, no file: as before.
  @Test func aStringOrNilIsTaken() async throws {
    let contents = try await Self.result(answering: "return 'hello'")
    #expect(contents.contains { $0.contains(#"result = "hello""#) }, "\(contents)")
    let none = try await Self.result(answering: "return nil")
    #expect(none.contains { $0.contains("a.txt") && $0.contains("no such file") }, "\(none)")
  }
}
