import Composable
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

@testable import ComposableHost

/// What a typed action starts runs as far as it can before the next line is read, as a test's
/// store lets it: an `effect.run` coroutine that sends three actions in a row sends them all
/// before the action typed after it. One time in five the session recorded the typed action
/// between them, which no test written from it could reproduce.
@Suite struct TypedAfterEffectsTests {
  static let source = """
    local effect = require("composable.effect")
    return {
      initial_state = function() return { log = "" } end,
      reduce = function(state, action)
        if action.type == "go" then
          return effect.run(function(send)
            send({ type = "mark", c = "a" })
            send({ type = "mark", c = "b" })
            send({ type = "mark", c = "c" })
          end)
        elseif action.type == "mark" then
          state.log = state.log .. action.c
        end
      end,
    }
    """

  @Test func aTypedActionComesAfterWhatTheOneBeforeStarted() async throws {
    for _ in 0..<40 {
      let repl = try ReplSessionTests.Harness(source: Self.source)
      await repl.type("go", #"{ type = "mark", c = "X" }"#)
      await repl.session.settle()
      let log = try repl.session.feature.state()["log"]
      #expect(log == "abcX")
      if log != "abcX" { return }
    }
  }
}
