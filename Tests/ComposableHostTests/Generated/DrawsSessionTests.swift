// Written by composable's :test from a REPL session on draws.lua.
// Each action is sent with the change it made, each action an effect sent back is
// received, and the time between is advanced; what env, the network and the files
// answered is served from the recording. Its test target depends on ComposableLuaTesting
// (or IssueReportingTestSupport), without which a failure is a warning and the test passes.
import Composable
import ComposableLua
import Foundation
import LuaKit
import Testing

@Suite struct DrawsSessionTests {
  @Test func replaysTheSession() async throws {
    let clock = ManualClock()
    let store = try TestStore(
      feature: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../fixtures/draws/draws.lua").path,
      initialState: ["rolls": [:]],
      env: [:]
    ) {
      $0.clock = clock
      // What env.uuid(), env.now() and env.random() answered, in order: the reducer,
      // and under effectsOfActions[N], the effects that the Nth action sent or
      // received started.
      $0.environmentTape = LuaEnvironmentTape(playing: [
        "uuid": ["00000000-0000-0000-0000-000000000000", "00000000-0000-0000-0000-000000000002"],
      ], effectsOfActions: [
        1: [
          "now": [1700000000],
          "random": [4],
          "uuid": ["00000000-0000-0000-0000-000000000001"],
        ],
        3: [
          "now": [1700000000],
          "random": [1],
          "uuid": ["00000000-0000-0000-0000-000000000003"],
        ],
      ])
    }
    await store.send(["type": "roll"]) {
      $0["asked"] = "00000000-0000-0000-0000-000000000000"
    }
    await clock.advance(by: .milliseconds(1000))
    await store.receive([
      "at": 1700000000,
      "id": "00000000-0000-0000-0000-000000000001",
      "type": "rolled",
      "value": 4,
    ]) {
      $0["rolls"][1] = ["at": 1700000000, "id": "00000000-0000-0000-0000-000000000001", "value": 4]
    }
    await store.send(["type": "roll"]) {
      $0["asked"] = "00000000-0000-0000-0000-000000000002"
    }
    await clock.advance(by: .milliseconds(1000))
    await store.receive([
      "at": 1700000000,
      "id": "00000000-0000-0000-0000-000000000003",
      "type": "rolled",
      "value": 1,
    ]) {
      $0["rolls"][2] = ["at": 1700000000, "id": "00000000-0000-0000-0000-000000000003", "value": 1]
    }
    await store.finish()
  }
}
