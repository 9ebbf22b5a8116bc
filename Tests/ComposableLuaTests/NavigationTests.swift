import Clocks
import Composable
import ComposableLua
import LuaKit
import TestSupport
import Testing

/// The navigation library (composable.stack, presents, dismiss, bindings) driven from Swift's
/// TestStore, over the feature the Lua navigation tests use (lua/meetings.lua): what Lua's
/// TestStore asserts holds for a Swift host too.
@Suite struct NavigationTests {
  let clock = TestClock()

  func makeStore() throws -> TestStore<LuaValue, LuaValue> {
    try TestStore(
      feature: repositoryRoot.appendingPathComponent("Tests/ComposableLuaTests/lua/meetings.lua")
        .path
    ) { [clock] in
      $0.clock = clock
    }
  }

  @Test func aScreensTimerEndsWhenTheScreenDismissesItself() async throws {
    let store = try makeStore()
    await store.send(["type": "time", "limit": 2]) {
      $0.path = [
        "screens": [["id": 1, "screen": "timer", "state": ["seconds": 0, "limit": 2]]],
        "next_id": 2,
      ]
    }
    await store.send(["type": "path", "id": 1, "action": "start"])
    await clock.advance(by: .seconds(1))
    await store.receive(["type": "path", "id": 1, "action": ["type": "tick"]]) {
      $0.path.screens[1].state.seconds = 1
    }
    await clock.advance(by: .seconds(1))
    await store.receive(["type": "path", "id": 1, "action": ["type": "tick"]]) {
      $0.path.screens[1].state.seconds = 2
    }
    await store.receive(["type": "path", "id": 1, "action": ["type": "dismiss"]]) {
      $0.path.screens = [:]
    }
    await clock.advance(by: .seconds(5))
    await store.finish()
  }

  @Test func theBackButtonEndsTheScreensTimer() async throws {
    let store = try makeStore()
    await store.send(["type": "time"]) {
      $0.path = [
        "screens": [["id": 1, "screen": "timer", "state": ["seconds": 0, "limit": 3]]],
        "next_id": 2,
      ]
    }
    await store.send(["type": "path", "id": 1, "action": "start"])
    await store.send(["type": "path", "pop_from": 1]) { $0.path.screens = [:] }
    await clock.advance(by: .seconds(5))
    await store.finish()
  }

  @Test func aDeleteConfirmedInTheAlertRemovesTheMeetingAndClosesTheAlert() async throws {
    let store = try makeStore()
    let delete: LuaValue = ["type": "delete", "id": "a"]
    await store.send(["type": "ask_delete", "id": "a"]) {
      $0.destination = [
        "screen": "alert",
        "state": [
          "title": "Delete Standup?",
          "buttons": [
            ["label": "Delete", "role": "destructive", "action": delete],
            ["label": "Edit instead", "action": "edit_instead"],
            ["label": "Cancel", "role": "cancel"],
          ],
        ],
      ]
    }
    await store.send(["type": "destination", "action": delete]) {
      $0.meetings = [:]
      $0.destination = nil
    }
  }

  /// An effect may send a composition's action with its child in short; a Swift test matches
  /// it written either way.
  @Test func aChildActionSentInShortIsReceivedWrittenEitherWay() async throws {
    let store = try makeStore()
    await store.send(["type": "open", "id": "a"]) {
      $0.path = [
        "screens": [
          ["id": 1, "screen": "detail", "state": ["meeting": $0.meetings[1], "title": ""]]
        ],
        "next_id": 2,
      ]
    }
    await store.send(["type": "poke", "id": 1])
    await store.receive(["type": "path", "id": 1, "action": "touch"]) {
      $0.path.screens[1].state.touched = true
    }
    await store.send(["type": "poke", "id": 1])
    await store.receive(["type": "path", "id": 1, "action": ["type": "touch"]])
  }
}
