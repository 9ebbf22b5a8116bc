import ComposableLua
import Foundation
import LocalServer
import LuaKit
import TestSupport
import Testing

@testable import ComposableHost

/// An HTTP response's `json` holds json.null where the body has null: a session whose actions
/// hold one is saved (it was refused, with advice meant for a saved state), read back and
/// replayed, as `:test` of it already was.
@Suite struct JSONNullInSessionsTests {
  static let source = """
    local effect = require("composable.effect")
    local json = require("composable.json")
    return {
      initial_state = function() return { nulls = 0 } end,
      reduce = function(state, action, env)
        if action.type == "fetch" then
          return effect.http{ url = env.url, response = "got" }
        elseif action.type == "got" then
          for _, v in ipairs(action.json.list) do
            if v == json.null then state.nulls = state.nulls + 1 end
          end
          if action.json.a == json.null then state.nulls = state.nulls + 1 end
        end
      end,
    }
    """

  @Test func aSessionWhoseActionsHoldJSONNullIsSavedAndReplays() async throws {
    let server = try LocalHTTPServer { _ in .json(#"{"a": null, "list": [1, null, null]}"#) }
    defer { server.stop() }
    let repl = try ReplSessionTests.Harness(
      source: Self.source, env: ["url": .string(LuaString(server.url))])
    await repl.type("fetch")
    for _ in 0..<6000 where repl.session.timeline.count < 2 {
      try await Task.sleep(for: .milliseconds(10))
    }
    await repl.session.settle()
    #expect(try repl.session.feature.state() == ["nulls": 3])
    let directory = repl.file.deletingLastPathComponent()
    let saved = directory.appendingPathComponent("s.session.lua")
    let said = await repl.type(":save \(saved.path)").0
    #expect(said.contains("saved 2 actions"), "\(said)")
    let text = try String(contentsOf: saved, encoding: .utf8)
    #expect(text.contains("a = json.null"), "\(text)")
    let read = try SessionRecording.read(from: saved)
    #expect(read == (await repl.session.recording(relativeTo: directory)))
    #expect(try SessionPlayback.run(read, feature: repl.file).state == ["nulls": 3])
    let test = directory.appendingPathComponent("counter_test.lua")
    #expect(await repl.type(":test \(test.path)").0.contains("it passes"))
  }

  /// json.null where a field holds something else is named as what it is (it was "userdata").
  @Test func jsonNullInTheWrongFieldIsNamed() throws {
    let file = try makeTemporaryDirectory("null").appendingPathComponent("s.session.lua")
    try """
    return {
      format = "composable-session", version = 1, feature = "counter.lua",
      code = "fnv1a64:0000000000000000", env = {}, initial_state = { n = 0 },
      actions = { { action = { type = "go" }, at = 0, after_jump = json.null } },
    }
    """.write(to: file, atomically: true, encoding: .utf8)
    #expect {
      try SessionRecording.read(from: file)
    } throws: { error in
      "\(error)".contains("actions[1].after_jump: expected a boolean, got json.null")
    }
  }
}
