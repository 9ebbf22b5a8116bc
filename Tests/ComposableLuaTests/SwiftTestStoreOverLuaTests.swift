import Composable
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// The Swift TestStore over a Lua feature, as a Swift user writes against it.
@Suite struct SwiftTestStoreOverLuaTests {
  static let source = """
    local effect = require("composable.effect")
    return {
      initial_state = function()
        return { todos = { { description = "eggs", done = false } }, loaded = false }
      end,
      reduce = function(state, action)
        if action.type == "load" then return effect.send("loaded")
        elseif action.type == "loaded" then state.loaded = true
        elseif action.type == "rename" then state.todos[action.index].description = action.text
        end
      end,
    }
    """

  func store() throws -> TestStore<LuaValue, LuaValue> {
    let directory = try makeTemporaryDirectory("swift-over-lua")
    let file = directory.appendingPathComponent("todos.lua")
    try Self.source.write(to: file, atomically: true, encoding: .utf8)
    return try TestStore(feature: file.path)
  }

  /// `receive("loaded")` expects `{ type = "loaded" }`, as `send("load")` sends
  /// `{ type = "load" }`.
  @Test func receiveTakesABareTypeAsSendDoes() async throws {
    let store = try store()
    await store.send("load")
    await store.receive("loaded") { $0.loaded = true }
  }

  /// A wrong bare type shows what was expected beside what came, in Lua.
  @Test func aWrongBareTypeShowsBoth() async throws {
    let store = try store()
    await store.send("load")
    let messages = Locked<[String]>([])
    await withKnownIssue {
      await store.receive("load_failed")
    } matching: { issue in
      messages.withLock { $0.append(message(of: issue)) }
      return true
    }
    // The state the unexpected action led to is checked too, as for any receive.
    #expect(messages.withLock { $0 } == [
      """
      Received unexpected action.

      − type = "load_failed"
      + type = "loaded"

      (Expected: −, Received: +)
      """,
      """
      State was not expected to change, but a change occurred.

      − loaded = false
      + loaded = true

      (Expected: −, Actual: +)
      """,
    ])
  }

  /// A field named like one of `LuaValue`'s own members (`description`) is reached with the
  /// subscript; indices are Lua's, 1-based, on the Swift side too.
  @Test func aFieldNamedLikeAMemberIsReachedByItsKey() async throws {
    let store = try store()
    await store.send(["type": "rename", "index": 1, "text": "milk"]) {
      $0.todos[1]["description"] = "milk"
    }
    #expect(store.state.todos[1]["description"] == "milk")
  }
}
