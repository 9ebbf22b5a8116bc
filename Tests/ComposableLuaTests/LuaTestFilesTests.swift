import ComposableLua
import ComposableLuaTesting
import Foundation
import TestSupport
import Testing

/// `swift test` runs the Lua tests too, as an app's test target would (`LuaTestFile`, the
/// product ComposableLuaTesting): every `*_test.lua` under `examples/` and `Tests/` (the
/// deliberately failing fixtures excepted), one case per file, each failure an issue at its
/// line in the Lua file.
@Suite struct LuaTestFilesTests {
  static let files = LuaTestFile.all(in: "../../examples") + LuaTestFile.all(in: "..")

  @Test func thereAreLuaTestsToRun() {
    let names = Self.files.map(\.url.path)
    #expect(names.contains { $0.hasSuffix("examples/counter/counter_test.lua") })
    #expect(names.contains { $0.hasSuffix("examples/syncups/syncups_test.lua") })
    #expect(!names.contains { $0.contains("/fixtures/") })
  }

  @Test(arguments: files)
  func luaTestFilePasses(_ file: LuaTestFile) async {
    await file.run()
  }

  /// Each failing Lua test is an issue at its own line of the Lua file, named and explained.
  @Test func aFailingLuaTestIsAnIssueAtItsLine() async throws {
    let file = LuaTestFile(
      repositoryRoot.appendingPathComponent(
        "Tests/ComposableLuaTests/fixtures/failing/failing_test.lua"))
    let issues = Locked<[Issue]>([])
    var results: [LuaTestResult] = []
    await withKnownIssue(isIntermittent: false) {
      results = await file.run(filter: "expects the wrong state")
    } matching: { issue in
      issues.withLock { $0.append(issue) }
      return true
    }
    #expect(results.count == 1)
    let recorded = issues.withLock { $0 }
    #expect(recorded.count == 1)
    let issue = try #require(recorded.first)
    #expect(issue.sourceLocation?.fileName == "failing_test.lua")
    #expect(issue.sourceLocation?.line == 8)  // store:send("click", ...) in that test
    #expect("\(issue)".contains("failing expects the wrong state: "))
  }

  /// A folder with no Lua tests fails, naming it: a misspelt path does not pass by running nothing.
  @Test func aFolderWithoutTestsFails() async throws {
    let empty = try makeTemporaryDirectory("no-lua-tests")
    let files = LuaTestFile.all(in: empty.path)
    #expect(files.count == 1)
    await withKnownIssue {
      await files[0].run()
    } matching: { issue in
      "\(issue)".contains("No *_test.lua file under \(empty.path). To fix,")
    }
  }

  /// A filter that matches no test fails, saying so: it does not pass by running nothing.
  @Test func aFilterMatchingNothingFails() async {
    let file = LuaTestFile(
      repositoryRoot.appendingPathComponent("examples/counter/counter_test.lua"))
    await withKnownIssue {
      await file.run(filter: "no such test")
    } matching: { issue in
      "\(issue)".contains(#"no test of counter_test.lua has "no such test" in its name"#)
    }
  }

  @Test func aFailureIsSplitIntoItsLineAndMessage() {
    #expect(LuaTestFile.split("a_test.lua:12: wrong", file: "a_test.lua") == (12, "wrong"))
    #expect(LuaTestFile.split("row.lua:3: in a module", file: "a_test.lua").line == nil)
    #expect(LuaTestFile.split("a_test.lua: no line", file: "a_test.lua").line == nil)
    let syntax = LuaTestFile.split("syntax error: a_test.lua:2: '=' expected", file: "a_test.lua")
    #expect(syntax.line == 2)
    #expect(syntax.message == "syntax error: '=' expected")
  }
}
