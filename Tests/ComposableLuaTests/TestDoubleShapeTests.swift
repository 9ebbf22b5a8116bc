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
      ("{ status = 200, headers = 'x' }", #"headers that are not names and values (strings): "x""#),
      ("{ status = 200, headers = { a = 1 } }", "headers that are not names and values (strings): { a = 1 }"),
    ]
    for (answer, said) in cases {
      let failures = try await failures(
        """
        local store = TestStore.new{ feature = "getter",
          http = function() return \(answer) end }
        store:send("get")
        store:receive("got", function(s) s.ok = false end)
        """)
      #expect(failures.first == "shape_test.lua:5: the test's http function answered with " + said,
        "\(answer): \(failures)")
      #expect(failures.count == 1, "\(answer): \(failures)")
    }
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
