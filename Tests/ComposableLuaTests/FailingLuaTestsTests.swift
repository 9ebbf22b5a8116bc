import ComposableLua
import Foundation
import TestSupport
import Testing

/// The fixtures' folder as failures name it: relative to the package, where `swift test` runs.
private let failing = "Tests/ComposableLuaTests/fixtures/failing"

/// The Lua tests in fixtures/failing fail on purpose; their report is pinned word for word.
@Suite struct FailingLuaTestsTests {
  static let file = repositoryRoot
    .appendingPathComponent("Tests/ComposableLuaTests/fixtures/failing/failing_test.lua")

  @Test func eachFailureNamesTheLuaLineAndSaysWhatHappened() async throws {
    let results = await LuaTestRunner().run(file: Self.file)
    var failures: [String: [String]] = [:]
    for result in results {
      if case let .failed(messages) = result.outcome { failures[result.name] = messages }
    }
    #expect(failures["failing expects the wrong state"] == [
      """
      \(failing)/failing_test.lua:8: A state change does not match expectation.

      − clicks = 2
      + clicks = 1

      (Expected: −, Actual: +)
      """,
    ])
    #expect(failures["failing waits for an action that never comes"] == [
      """
      \(failing)/failing_test.lua:13: Expected to receive an action, but received none. Nothing waits on \
      the test clock (it stands at 0.0 seconds).
      """,
    ])
    #expect(failures["failing leaves a received action unasserted"] == [
      """
      \(failing)/failing_test.lua:19: The store received 1 unexpected action.

      Unhandled actions:
        • { type = "click" }

      To fix, assert it with "store:receive", skip it with "store:skip_received_actions()", or \
      turn exhaustivity off with "exhaustive = false in TestStore.new".
      """,
    ])
    #expect(failures["failing leaves an effect running"] == [
      """
      \(failing)/failing_test.lua:24: An effect returned for this action is still running (effect.after). \
      It must complete before the end of the test.

      To fix, wait for it to finish ("store:finish()" or "store:advance(seconds)"), cancel it \
      from the feature, or skip it with "store:skip_in_flight_effects()".
      """,
    ])
    let dependency = failures["failing uses a dependency it did not provide"] ?? []
    #expect(dependency.first == """
      \(failing)/failing_test.lua:29: A test used "http" without providing it: GET http://report.test/

      To fix, give the TestStore an http function: TestStore.new{ ..., http = function(request) \
      return { status = 200, body = "..." } end }
      """)
    #expect(failures["failing stamps with a uuid and a time it did not provide"] == [
      """
      \(failing)/failing_test.lua:60: A test used "uuid" without providing it (env.uuid()).

      To fix, give the TestStore a generator: TestStore.new{ ..., uuid = "incrementing" } \
      (00000000-0000-0000-0000-000000000000, then ...001).
      """,
      """
      \(failing)/failing_test.lua:60: A test used "date" without providing it (env.now()).

      To fix, give the TestStore a time: TestStore.new{ ..., now = 1700000000 } (seconds since \
      1970).
      """,
    ])
    // Once: the save that failed for want of files is not reported again.
    #expect(failures["failing saves with no files given"] == [
      """
      \(failing)/failing_test.lua:73: A test used "files" without providing it: write \
      notes.saved.lua

      To fix, give the TestStore files: TestStore.new{ ..., files = "fixtures/dir" } (a copy of a \
      directory beside the test) or files = { ["name.txt"] = "contents" }
      """,
    ])
    // The body's failure first: what the after_each hook then finds follows from it.
    let hooked = failures["failing with hooks fails an assertion, then its hook finds an effect running"] ?? []
    #expect(hooked.count == 2)
    #expect(hooked.first?.hasPrefix("\(failing)/failing_test.lua:85: Expected objects to be equal.") == true)
    #expect(hooked.last?.hasPrefix("\(failing)/failing_test.lua:81: Expected effects to finish") == true)
    let reading = failures["failing with hooks reads the store in the function that changes the expected state"]
    #expect(reading?.first?.hasPrefix("""
      \(failing)/failing_test.lua:89: Threw an error while updating the expected state: store.state \
      cannot be used inside the function given to send or receive, which changes the expected state \
      it gets as its argument; to fix, read what it needs before the call
      """) == true, "\(reading ?? [])")
    // A list of patterns: each must match; the failure one matched is taken.
    #expect(failures["failing expectations expects two failures and one comes"] == [
      """
      \(failing)/failing_test.lua:96: Expected a failure matching "nothing like this", but none \
      of those recorded matched
      """,
    ])
    #expect(results.count == 15)
    #expect(LuaTestReport.summary(results) == "0 passed, 15 failed")
  }

  /// An effect left running is reported once, by kind and id, at the line of the `send` that
  /// started it; durations are the test clock's; a wrong receive shows both types; no message
  /// names the test library's own chunk; what a test prints stays with it.
  @Test func messagesSpeakOfTheTestsOwnCodeAndClock() async throws {
    let results = await LuaTestRunner().run(file: Self.file)
    var failures: [String: [String]] = [:]
    var printed: [String: [String]] = [:]
    for result in results {
      if case let .failed(messages) = result.outcome { failures[result.name] = messages }
      printed[result.name] = result.output
    }
    let fix = """
      To fix, wait for it to finish ("store:finish()" or "store:advance(seconds)"), cancel it \
      from the feature, or skip it with "store:skip_in_flight_effects()".
      """
    #expect(failures["failing leaves two effects of a merge running"] == [
      """
      \(failing)/failing_test.lua:35: An effect returned for this action is still running (effect.after). \
      It must complete before the end of the test.

      \(fix)
      """,
      """
      \(failing)/failing_test.lua:35: An effect returned for this action is still running \
      (effect.debounce with id "clicks"). It must complete before the end of the test.

      \(fix)
      """,
    ])
    #expect(failures["failing finishes while a debounce waits on the clock"] == [
      """
      \(failing)/failing_test.lua:43: Expected effects to finish, but 1 effect still runs:
        • effect.after, started at line 40
      The test clock stands at 0.5 seconds; the next effect waiting on it wakes at 2.0 seconds.

      To fix, advance the clock ("store:advance(seconds)"), cancel it from the feature, or skip \
      it with "store:skip_in_flight_effects()".
      """,
    ])
    #expect(failures["failing receives another type than it expects"]?.first == """
      \(failing)/failing_test.lua:49: Received unexpected action.

      − type = "clicked"
      + type = "click"

      (Expected: −, Received: +)
      """)
    #expect(failures["failing requires a module that is not there"] == [
      """
      \(failing)/failing_test.lua:55: module 'nowhere' not found: the allowed modules are 'composable', \
      'composable.effect', 'composable.journal', 'composable.json', 'composable.test'; no file '\(Self.file.deletingLastPathComponent().path)/nowhere.lua'
      stack traceback:
      \t\(failing)/failing_test.lua:55: in field 'body'
      """,
    ])
    #expect(failures["failing loops forever"] == [
      "\(failing)/failing_test.lua:66: instruction limit of 10000000 exceeded",
    ])
    let all = failures.values.joined().joined(separator: "\n")
    #expect(!all.contains("composable.test:") && !all.contains("sandbox:"))
    #expect(printed["failing requires a module that is not there"] == ["before the require"])
    #expect(printed["failing loops forever"] == ["looping"])
    #expect(printed["failing expects the wrong state"] == [])
    let readable = LuaTestReport.readable(results)
    #expect(readable.contains("✗ failing loops forever\n    \(failing)/failing_test.lua:66: instruction limit of 10000000 exceeded\n    │ looping\n"))
    #expect(!LuaTestReport.tap(results).contains("looping"))
    #expect(!LuaTestReport.junit(results).contains("looping"))
  }

  /// Each assertion fails with its message at the test's own line, and `same` passes on equal
  /// data (NaN included), so the assertions a test relies on can fail and can pass.
  @Test func eachAssertionFailsAtTheTestsLineWithWhatItSaw() async throws {
    let file = Self.file.deletingLastPathComponent().appendingPathComponent("assertions_test.lua")
    let results = await LuaTestRunner().run(file: file)
    var failures: [String: String] = [:]
    var passed: [String] = []
    for result in results {
      switch result.outcome {
      case let .failed(messages): failures[result.name] = messages.joined(separator: "\n")
      case .passed: passed.append(result.name)
      default: break
      }
    }
    #expect(failures["assertions same, nested tables that differ"] == """
      \(failing)/assertions_test.lua:5: Expected objects to be the same.
      Passed in:
      {
        a = 1,
        list = {
          [1] = 1,
          [2] = 3
        }
      }
      Expected:
      {
        a = 1,
        list = {
          [1] = 1,
          [2] = 2
        }
      }
      """)
    #expect(failures["assertions equal, with a message"] == """
      \(failing)/assertions_test.lua:8: the count
      Expected objects to be equal.
      Passed in:
      2
      Expected:
      1
      """)
    #expect(failures["assertions truthy"] == """
      \(failing)/assertions_test.lua:10: Expected to be truthy, but value was:
      nil
      """)
    #expect(failures["assertions falsy"] == """
      \(failing)/assertions_test.lua:11: Expected to be falsy, but value was:
      0
      """)
    #expect(failures["assertions is_true"]?.hasPrefix(
      "\(failing)/assertions_test.lua:12: Expected objects to be equal.\nPassed in:\n1\nExpected:\ntrue") == true)
    #expect(failures["assertions is_nil"]?.hasPrefix("\(failing)/assertions_test.lua:13: ") == true)
    #expect(failures["assertions error, none raised"]
      == "\(failing)/assertions_test.lua:14: Expected an error, but none was raised")
    #expect(failures["assertions error, another message"] == """
      \(failing)/assertions_test.lua:16: Expected an error matching "bang", got:
      \(failing)/assertions_test.lua:16: boom
      """)
    #expect(failures["assertions assert itself"] == "\(failing)/assertions_test.lua:18: plain assert")
    #expect(passed == ["assertions same, NaN is NaN", "assertions same, a table and its copy"])
    #expect(failures.count == 9)
  }
}
