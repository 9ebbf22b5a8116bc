import ComposableLua
import Foundation
import TestSupport
import Testing

/// What a Lua test gives its TestStore is held to the shapes it takes, as an effect's fields
/// are: `TestStore.new{ htpp = ... }` ran the test with no fake, and an http answer with `jsn`
/// in place of `json` was an empty body, the feature failing later with no hint of the typo (a
/// new user's findings).
@Suite struct TestDoubleShapeTests {
  static let feature = """
    local effect = require("composable.effect")
    return {
      initial_state = function() return {} end,
      reduce = function(state, action)
        if action.type == "get" then
          return effect.http{ url = "http://api.test/", response = "got" }
        elseif action.type == "got" then
          state.ok, state.body = action.ok, action.body
        end
      end,
    }
    """

  /// The one test's failures, `body` its body, beside the feature.
  func failures(_ body: String) async throws -> [String] {
    let directory = try makeTemporaryDirectory("double-shape")
    defer { try? FileManager.default.removeItem(at: directory) }
    try Self.feature.write(
      to: directory.appendingPathComponent("getter.lua"), atomically: true, encoding: .utf8)
    let source = """
      local TestStore = require("composable.test").TestStore
      it("runs", function()
      \(body)
      end)
      """
    let results = await LuaTestRunner().run(
      source: source, name: "shape_test.lua", directory: directory)
    try #require(results.count == 1)
    guard case let .failed(failures) = results[0].outcome else { return [] }
    return failures
  }

  /// What cannot cross to the host (a cycle) is named by its field of `TestStore.new`, not by
  /// the request's inner name (it read `.spec.answers.effects.uuid.me`).
  @Test func aFieldThatCannotCrossIsNamedAsGiven() async throws {
    let failed = try await failures(
      #"local t = {} t.me = t TestStore.new{ feature = "getter", answers = { effects = { uuid = t } } }"#)
    #expect(
      failed
        == [
          // At the test's line: the request that carried its line could not cross.
          "shape_test.lua:2: TestStore.new: answers.effects.uuid.me: cycle: the table contains "
            + "itself"
        ], "\(failed)")
  }

  @Test func aFieldTestStoreNewDoesNotTakeIsNamed() async throws {
    let fields = "its fields are answers, env, exhaustive, feature, files, http, now, state, uuid"
    let cases: [(field: String, said: String)] = [
      ("htpp = function() end", #"no field "htpp" (did you mean http?); "# + fields),
      ("file = {}", #"no field "file" (did you mean files?); "# + fields),
      ("exhaustiv = false", #"no field "exhaustiv" (did you mean exhaustive?); "# + fields),
      ("Statee = {}", #"no field "Statee" (did you mean state?); "# + fields),
      ("stat = {}, nw = 0", #"no field "nw" (did you mean now?); "# + fields),  // the first, by name
      ("[1] = 2", "no field 1; " + fields),
      ("[true] = 2", "no field true; " + fields),
    ]
    for (field, said) in cases {
      let failures = try await failures(#"TestStore.new{ feature = "getter", \#(field) }"#)
      #expect(failures == ["shape_test.lua:3: TestStore.new: " + said], "\(field)")
    }
    // Without feature: the field meant is named first; then what is missing.
    let others: [(spec: String, said: String)] = [
      (#"{ Feature = "getter" }"#, #"no field "Feature" (did you mean feature?); "# + fields),
      (#"{ "getter" }"#, "no field 1; " + fields),
      ("{}", #"feature is missing: the feature's module (require("counter")) or its name"#),
      (
        #"{ feature = "getter", answers = { uid = {} } }"#,
        #"answers has no field "uid" (did you mean uuid?); it maps uuid, now and random to lists of answers, and effects to a table of such lists"#
      ),
      (#"{ feature = "getter", answers = { uuid = 5 } }"#, "answers.uuid must be a list of answers, got 5"),
      (
        #"{ feature = "getter", answers = { effect = {} } }"#,
        #"answers has no field "effect" (did you mean effects?); it maps uuid, now and random to lists of answers, and effects to a table of such lists"#
      ),
      (#"{ feature = "getter", answers = { effects = 5 } }"#, "answers.effects must be a table, got 5"),
      (
        #"{ feature = "getter", answers = { effects = { uuid = "x" } } }"#,
        "answers.effects.uuid must be a list of answers, got string"
      ),
      (
        #"{ feature = "getter", answers = { effects = { effects = {} } } }"#,
        #"answers.effects has no field "effects"; it maps uuid, now and random to lists of answers, and an action's number (from 1) to such lists for the effects it started"#
      ),
      (
        #"{ feature = "getter", answers = { effects = { [0] = {} } } }"#,
        #"answers.effects has no field 0; it maps uuid, now and random to lists of answers, and an action's number (from 1) to such lists for the effects it started"#
      ),
      (#"{ feature = "getter", answers = { effects = { [2] = 5 } } }"#, "answers.effects[2] must be a table, got 5"),
      (
        #"{ feature = "getter", answers = { effects = { [2] = { [3] = {} } } } }"#,
        #"answers.effects[2] has no field 3; it maps uuid, now and random to lists of answers"#
      ),
      (#"{ feature = "getter", exhaustive = "no" }"#, #"exhaustive must be true or false, got "no""#),
      (#"{ feature = "getter", now = 0/0 }"#, "now must be seconds since 1970 (a finite number), got 0/0"),
    ]
    for (spec, said) in others {
      let failures = try await failures("TestStore.new\(spec)")
      #expect(failures == ["shape_test.lua:3: TestStore.new: " + said], "\(spec)")
    }
    // Every field it takes, given, is taken.
    #expect(
      try await failures(
        """
        TestStore.new{ feature = "getter", state = {}, env = {}, http = function() end,
          files = {}, uuid = "incrementing", now = 0, answers = {}, exhaustive = false }
        """
      ).isEmpty)
  }

  @Test func anHTTPAnswerOfAnotherShapeFailsTheTestAndTheRequest() async throws {
    let fields = "an answer's fields are body, delay, headers, json, method, status, url"
    let cases: [(answer: String, said: String)] = [
      (
        "{ status = 200, jsn = {} }",
        #"a field "jsn" it does not take (did you mean json?); "# + fields
      ),
      ("{ status = 200, bdy = 'x' }", #"a field "bdy" it does not take (did you mean body?); "# + fields),
      ("{ status = 200, [1] = 'x' }", "a field 1 it does not take; " + fields),
      ("{ status = 200, body = {} }", "a body that is table: a body is a string (json = ... for a table sent as JSON)"),
      ("{ status = 200, body = 'x', json = {} }", "both body and json: an answer gives one"),
      ("{ status = 200, headers = 'x' }", #"headers that are not names and values (strings, each a line, a name not empty): "x""#),
      ("{ status = 200, headers = { a = 1 } }", "headers that are not names and values (strings, each a line, a name not empty): { a = 1 }"),
      ("{ stauts = 200, body = 'x' }", #"a field "stauts" it does not take (did you mean status?); "# + fields),
      ("{ body = 'x' }", "status missing: it is an HTTP status, an integer from 100 to 599 (200 for OK)"),
      ("{ status = '200' }", #"status "200": it is an HTTP status, an integer from 100 to 599 (200 for OK)"#),
      ("{ status = 200.5 }", "status 200.5: it is an HTTP status, an integer from 100 to 599 (200 for OK)"),
      ("{ status = -1 }", "status -1: it is an HTTP status, an integer from 100 to 599 (200 for OK)"),
      ("{ status = math.maxinteger }", "status 9223372036854775807: it is an HTTP status, an integer from 100 to 599 (200 for OK)"),
      ("{ status = 200, delay = 0/0 }", "delay 0/0: expected a number of seconds from 0 to 1e9"),
      ("{ status = 200, delay = -1 }", "delay -1: expected a number of seconds from 0 to 1e9"),
      ("{ status = 200, delay = '1' }", #"delay "1": expected a number of seconds from 0 to 1e9"#),
      ("{ status = 200, url = 5 }", "url = 5: an answer echoes the request's url, a string"),
      ("{ status = 200, headers = { ['X\\nY'] = 'v' } }", "headers that are not names and values (strings, each a line, a name not empty): "),
      ("{ status = 200, headers = { a = 'v\\r\\nX: y' } }", "headers that are not names and values (strings, each a line, a name not empty): "),
      ("{ status = 200, headers = { [''] = 'v' } }", "headers that are not names and values (strings, each a line, a name not empty): "),
      ("nil", "nil: it answers with { status = ..., body = ... }, or raises to fail the request"),
      ("'ok'", "string: it answers with { status = ..., body = ... }, or raises to fail the request"),
      ("setmetatable({}, { __index = { status = 200 } })", "status missing: it is an HTTP status, an integer from 100 to 599 (200 for OK)"),
    ]
    for (answer, said) in cases {
      let failures = try await failures(
        """
        local store = TestStore.new{ feature = "getter",
          http = function() return \(answer) end }
        store:send("get")
        store:receive("got", function(s) s.ok = false end)
        """)
      #expect(
        failures.first?.hasPrefix("shape_test.lua:5: the test's http function answered with " + said)
          == true, "\(answer): \(failures)")
      #expect(failures.count == 1, "\(answer): \(failures)")
    }
    // json with no JSON form: the test fails too.
    let cyclic = try await failures(
      """
      local store = TestStore.new{ feature = "getter", http = function()
        local t = {}; t.t = t; return { status = 200, json = t } end }
      store:send("get")
      store:receive("got", function(s) s.ok = false end)
      """)
    #expect(
      cyclic.first?.hasPrefix(
        "shape_test.lua:5: the test's http function answered with")
        == true, "\(cyclic)")
    // A function that raises fails the request only: the way to fake a network's failure.
    let raising = try await failures(
      """
      local store = TestStore.new{ feature = "getter", http = function() error("offline", 0) end }
      store:send("get")
      store:receive("got", function(s) s.ok = false end)
      """)
    #expect(raising.isEmpty, "\(raising)")
    // The shapes it takes, and the request's method and url echoed, as `:test` writes them.
    let taken = try await failures(
      """
      local store = TestStore.new{ feature = "getter", http = function(request)
        return { status = 200, body = "hi", headers = { ["X-A"] = "b" }, delay = 0,
          method = request.method, url = request.url } end }
      store:send("get")
      store:receive("got", function(s) s.ok, s.body = true, "hi" end)
      """)
    #expect(taken.isEmpty, "\(taken)")
  }

  /// A table of files no disk could hold: refused, saying why (one of two names for a file was
  /// taken, which one changing from run to run; a file under a file was written).
  @Test func filesNoDiskCouldHoldAreRefused() async throws {
    let cases: [(files: String, said: String)] = [
      (#"{ ["."] = "x" }"#, #"files["."]: it names the folder itself; give a file's name"#),
      (#"{ ["c//d"] = "1", ["c/d"] = "2" }"#, "files names c/d twice ("),
      (#"{ a = "file", ["a/b"] = "under" }"#, "files holds a and a/b under it: a file is no folder"),
      (#"{ ["a/b"] = "1", ["a/b/c/d"] = "2" }"#, "files holds a/b and a/b/c/d under it"),
    ]
    for (files, said) in cases {
      let failures = try await failures(#"TestStore.new{ feature = "getter", files = \#(files) }"#)
      #expect(failures.count == 1 && failures[0].contains("TestStore.new: " + said), "\(failures)")
    }
    #expect(
      try await failures(
        #"TestStore.new{ feature = "getter", files = { ["a/b"] = "1", ["a/c"] = "2", b = "" } }"#
      ).isEmpty)
  }
}
