import Composable
import ComposableLua
import Foundation
import LuaKit
import Testing

/// `on_change` compares what `of` returns by value: a table changed in place is a change, `old`
/// is what it held before (a copy), and a table replaced by an equal one is no change.
@Suite struct OnChangeByValueTests {
  static let source = """
    local composable = require("composable")
    local function base(state, action)
      if action.type == "push" then table.insert(state.items, action.item)
      elseif action.type == "edit" then state.items[1].title = action.title
      elseif action.type == "same" then state.items = { { title = state.items[1].title } }
      elseif action.type == "count" then state.n = state.n + 1
      end
    end
    return {
      initial_state = function() return { items = { { title = "a" } }, n = 0, log = {} } end,
      reduce = composable.on_change{
        of = function(state) return state.items end,
        run = function(old, new, state)
          table.insert(state.log, #old .. ":" .. old[1].title .. "->" .. #new .. ":" .. new[1].title)
        end,
        reducer = base,
      },
    }
    """

  @Test func aTableChangedInPlaceIsAChangeAndOldIsWhatItWas() async throws {
    let feature = try LuaFeature(source: Self.source, file: "watch.lua")
    let store = TestStore(
      initialState: try feature.state(),
      reducer: { LuaFeatureReducer<LuaValue>(feature: feature, dependencies: $0) })
    await store.send(["type": "push", "item": ["title": "b"]]) {
      $0.items = [["title": "a"], ["title": "b"]]
      $0.log = ["1:a->2:a"]
    }
    await store.send(["type": "edit", "title": "z"]) {
      $0.items = [["title": "z"], ["title": "b"]]
      $0.log = ["1:a->2:a", "2:a->2:z"]
    }
    await store.send("count") { $0.n = 1 }  // the items are untouched: no run
    await store.send("same")  {  // replaced by a list equal to... a shorter one: a change
      $0.items = [["title": "z"]]
      $0.log = ["1:a->2:a", "2:a->2:z", "2:z->1:z"]
    }
    await store.send("same")  // replaced by an equal list: no change
  }
}
