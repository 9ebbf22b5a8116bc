import Clocks
import Composable
import ComposableLua
import LuaKit
import TestSupport
import Testing

@Suite struct LuaEffectTests {
  static let source = """
    local effect = require("composable.effect")
    local M = {}
    function M.initial_state() return { log = {} } end
    function M.reduce(state, action)
      local t = action.type
      if t == "log" then
        table.insert(state.log, action.text)
      elseif t == "send" then
        return effect.send({ type = "log", text = "sent" })
      elseif t == "merge" then
        return effect.merge(effect.send({ type = "log", text = "a" }), effect.send({ type = "log", text = "b" }))
      elseif t == "later" then
        return effect.after(1, { type = "log", text = "later" })
      elseif t == "search" then
        return effect.debounce(effect.send({ type = "log", text = action.query }), "search", 0.3)
      elseif t == "tick" then
        return effect.cancellable(effect.every(1, { type = "log", text = "tick" }), "timer")
      elseif t == "stop" then
        return effect.cancel("timer")
      elseif t == "bad_kind" then
        state.log = { "should be rolled back" }
        return { kind = "telepathy" }
      elseif t == "bad_seconds" then
        return effect.after("soon", "log")
      elseif t == "bad_action" then
        return effect.send(42)
      end
    end
    return M
    """

  @Test func sendAndMergeFeedActionsBack() async throws {
    let store = try testStore(Self.source)
    await store.send("send")
    await store.receive(["type": "log", "text": "sent"]) { $0.log = ["sent"] }
    await store.send("merge")
    await store.receive(["type": "log", "text": "a"]) { $0.log = ["sent", "a"] }
    await store.receive(["type": "log", "text": "b"]) { $0.log = ["sent", "a", "b"] }
  }

  @Test func afterRunsOnTheStoresClock() async throws {
    let clock = TestClock()
    let store = try testStore(Self.source) { $0.clock = clock }
    await store.send("later")
    await clock.advance(by: .milliseconds(999))
    await clock.advance(by: .milliseconds(1))
    await store.receive(["type": "log", "text": "later"]) { $0.log = ["later"] }
  }

  @Test func debounceKeepsTheLastOfABurst() async throws {
    let clock = TestClock()
    let store = try testStore(Self.source) { $0.clock = clock }
    await store.send(["type": "search", "query": "a"])
    await clock.advance(by: .milliseconds(100))
    await store.send(["type": "search", "query": "ab"])
    await clock.advance(by: .milliseconds(300))
    await store.receive(["type": "log", "text": "ab"]) { $0.log = ["ab"] }
    await store.finish()
  }

  @Test func timersTickUntilCancelled() async throws {
    let clock = TestClock()
    let store = try testStore(Self.source) { $0.clock = clock }
    await store.send("tick")
    await clock.advance(by: .seconds(1))
    await store.receive(["type": "log", "text": "tick"]) { $0.log = ["tick"] }
    await clock.advance(by: .seconds(1))
    await store.receive(["type": "log", "text": "tick"]) { $0.log = ["tick", "tick"] }
    await store.send("stop")
    await clock.advance(by: .seconds(3))
    await store.finish()
  }

  @Test func aMalformedEffectNamesTheFieldAndRollsBack() async throws {
    let store = try testStore(Self.source)
    await withKnownIssue {
      await store.send("bad_kind")
    } matching: { issue in
      message(of: issue) == """
        the reducer returned a malformed effect for { type = "bad_kind" }, and the state was \
        rolled back: effect.kind: unknown effect kind "telepathy"; the kinds are none, send, \
        merge, concat, after, every, cancellable, cancel, debounce, throttle, run, http, file
        """
    }
    await withKnownIssue {
      await store.send("bad_seconds")
    } matching: { issue in
      message(of: issue).hasSuffix(
        "effect.seconds: expected a number of seconds from 0 to 1e9, got string")
    }
    await withKnownIssue {
      await store.send("bad_action")
    } matching: { issue in
      message(of: issue).hasSuffix(
        "effect.action: expected an action (a table with a string type, or a string), got number")
    }
  }
}
