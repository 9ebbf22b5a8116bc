import Composable
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// `composable.json` where feature code uses it: on the state itself (proxies, aliases, writes
/// made in the same action), on tables with hostile metatables, and refusing to mark the state.
@Suite struct JSONInFeatureTests {
  static let source = """
    local json = require("composable.json")
    return {
      initial_state = function()
        return { todos = { { id = 1, title = "milk" } }, meta = {}, text = "" }
      end,
      reduce = function(state, action)
        if action.type == "dump" then
          -- A write and an alias in this very action: the text sees both.
          state.todos[2] = { id = 2, title = "eggs\\r\\n" }
          local alias = state.todos[1]
          alias.done = true
          state.text = json.encode({ todos = state.todos, meta = state.meta })
        elseif action.type == "hostile" then
          local trap = setmetatable({ a = 1 }, {
            __index = function() error("read through __index") end,
            __pairs = function() error("walked through __pairs") end,
            __len = function() return 99 end,
          })
          state.text = json.encode(trap)
        elseif action.type == "mark_state" then
          json.array(state.todos)
        elseif action.type == "load" then
          state.loaded = json.decode(action.text)
        end
      end,
    }
    """

  @Test func theStateEncodesAsItIsInThisAction() async throws {
    let store = try testStore(Self.source)
    await store.send("dump") {
      $0.todos[1].done = true
      $0.todos[2] = ["id": 2, "title": "eggs\r\n"]
      $0.text = #"{"meta":{},"todos":[{"done":true,"id":1,"title":"milk"},{"id":2,"title":"eggs\r\n"}]}"#
    }
  }

  /// Metamethods are not called: the table's own fields are written.
  @Test func metamethodsAreNotCalled() async throws {
    let store = try testStore(Self.source)
    await store.send("hostile") { $0.text = #"{"a":1}"# }
  }

  /// `json.array` on a table of the state is an error, and the action is rolled back.
  @Test func markingTheStateIsRefused() async throws {
    let store = try testStore(Self.source)
    await withKnownIssue {
      await store.send("mark_state")
    } matching: { issue in
      message(of: issue).contains(
        "json.array: the table is part of the state; mark a new table (json.array({ ... })) and store that")
    }
  }

  /// Decoded data stored in the state is plain data: an array stays an array, and a bad text
  /// is an error at its line and column, with the state rolled back.
  @Test func decodedDataGoesIntoTheState() async throws {
    let store = try testStore(Self.source)
    await store.send(["type": "load", "text": #"{"list": [], "n": 1.5}"#]) {
      $0.loaded = ["list": .table(LuaTable(array: [])), "n": 1.5]
    }
    await withKnownIssue {
      await store.send(["type": "load", "text": "[1,\n 2,,]"])
    } matching: { issue in
      message(of: issue).contains("json.decode: line 2, column 4: expected a value")
    }
  }
}
