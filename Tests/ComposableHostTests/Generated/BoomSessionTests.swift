// Written by composable's :test from a REPL session on boom.lua.
// Each action is sent with the change it made, each action an effect sent back is
// received, and the time between is advanced; what env, the network and the files
// answered is served from the recording. Its test target depends on ComposableLuaTesting
// (or IssueReportingTestSupport), without which a failure is a warning and the test passes.
import Composable
import ComposableLua
import Foundation
import LuaKit
import Testing

@Suite struct BoomSessionTests {
  @Test func replaysTheSession() async throws {
    let clock = ManualClock()
    let store = try TestStore(
      feature: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../fixtures/boom/boom.lua").path,
      initialState: ["ids": [:], "n": 0],
      env: [:]
    ) {
      $0.clock = clock
      // What env.uuid(), env.now() and env.random() answered, in order: the reducer,
      // and under effectsOfActions[N], the effects that the Nth action sent or
      // received started.
      $0.environmentTape = LuaEnvironmentTape(playing: [
        "uuid": [
          "00000000-0000-0000-0000-000000000000",
          "00000000-0000-0000-0000-000000000001",
          "00000000-0000-0000-0000-000000000002",
          "00000000-0000-0000-0000-000000000003",
        ],
      ])
    }
    await withKnownIssue {
      await store.send(["type": "go"]) {
        $0["n"] = 1
      }
    } matching: { $0.description.contains("boom went the action (50% [of it])") }
    // action 2 ({ type = "boom" }) raised when recorded, as it does above:
    // boom.lua:33: boom went the action (50% [of it])
    await store.receive(["type": "boom"])
    await store.send(["type": "draw"]) {
      $0["ids"][1] = "00000000-0000-0000-0000-000000000001"
    }
    // action 4 ({ type = "boom" }) raised when recorded, and fails here too:
    // boom.lua:33: boom went the action (50% [of it])
    await withKnownIssue {
      await store.send(["type": "boom"])
    } matching: { $0.description.contains("boom went the action (50% [of it])") }
    await store.send(["type": "draw"]) {
      $0["ids"][2] = "00000000-0000-0000-0000-000000000003"
    }
    await store.finish()
  }
}
