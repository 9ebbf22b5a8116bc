import Clocks
import Composable
import ComposableLua
import Foundation
import LocalServer
import LuaKit
import TestSupport
import Testing

/// The SyncUps example from Swift: the same Lua feature its Lua tests pin down, through the
/// Swift TestStore, with a real transcript service on 127.0.0.1 and the live HTTP client.
@Suite struct SyncUpsExampleTests {
  static func uuid(_ n: Int) -> LuaValue {
    .string(LuaString(String(format: "00000000-0000-0000-0000-%012d", n)))
  }

  /// One sync-up of a minute with two attendees, and the app on its detail screen.
  static let daily: LuaValue = [
    "id": "A", "title": "Daily", "minutes": 1, "meetings": [],
    "attendees": [["id": "B", "name": "Blob"], ["id": "C", "name": "Jr"]],
  ]

  static func onDetail() -> LuaValue {
    [
      "syncups": [daily],
      "path": [
        "screens": [["id": 1, "screen": "detail", "state": ["syncup": daily]]], "next_id": 2,
      ],
    ]
  }

  static func store(
    state: LuaValue? = nil, env: LuaValue = [:], clock: TestClock<Duration> = TestClock(),
    files: FileClient = .inMemory()
  ) throws -> TestStore<LuaValue, LuaValue> {
    try TestStore(feature: example("syncups/syncups.lua"), initialState: state, env: env) {
      $0.clock = clock
      $0.uuid = .incrementing
      $0.date = .constant(Date(timeIntervalSince1970: 1_700_000_000))
      $0.files = files
      $0.http = .live()
    }
  }

  @Test func aSyncUpIsAddedThroughTheSheet() async throws {
    let clock = TestClock()
    let files = FileClient.inMemory()
    let store = try Self.store(clock: clock, files: files)
    let draft: LuaValue = [
      "id": Self.uuid(0), "title": "", "minutes": 5, "meetings": [],
      "attendees": [["id": Self.uuid(1), "name": ""]],
    ]
    await store.send("add_tapped") {
      $0.destination = ["screen": "add", "state": ["syncup": draft]]
    }
    await store.send(
      ["type": "destination", "action": ["type": "set", "field": "title", "value": "Daily"]]
    ) {
      $0.destination.state.syncup.title = "Daily"
    }
    await store.send(
      ["type": "destination", "action": ["type": "set_attendee", "index": 1, "name": "Blob"]]
    ) {
      $0.destination.state.syncup.attendees[1].name = "Blob"
    }
    // A binding of the wrong type is refused, naming the field; nothing changes.
    await withKnownIssue {
      await store.send(
        ["type": "destination", "action": ["type": "set", "field": "minutes", "value": "ten"]])
    } matching: { issue in
      "\(issue)".contains("bindings: state.syncup.minutes takes an integer, got string")
    }
    await store.send("confirm_add") {
      $0.destination = .nil
      $0.syncups[1] = [
        "id": Self.uuid(0), "title": "Daily", "minutes": 5, "meetings": [],
        "attendees": [["id": Self.uuid(1), "name": "Blob"]],
      ]
    }
    // The list is saved a second later, where the next start reads it.
    await clock.advance(by: .seconds(1))
    await store.finish()
    let saved = try await files.read(DataPath("syncups.saved.lua"))
    #expect(String(decoding: saved, as: UTF8.self).contains(#"title = "Daily""#))
  }

  @Test func aMeetingRunsToItsEndAndIsSavedWithTheTranscriptTheServiceSends() async throws {
    let server = try LocalHTTPServer { request in
      request.method == "POST"
        ? .json(#"{ "transcript": "We shipped it." }"#) : .text("no", status: 404)
    }
    defer { server.stop() }
    let clock = TestClock()
    let store = try Self.store(
      state: Self.onDetail(),
      env: ["transcript_url": .string(LuaString(server.url + "/transcripts"))], clock: clock)
    await store.send(["type": "path", "id": 1, "action": "start_meeting_tapped"])
    await store.receive(["type": "path", "id": 1, "action": "delegate_start_meeting"]) {
      $0.path.next_id = 3
      $0.path.screens[2] = [
        "id": 2, "screen": "record",
        "state": ["syncup": Self.daily, "seconds_elapsed": 0, "speaker_index": 1],
      ]
    }
    await store.receive(["type": "path", "id": 2, "action": "on_appear"])
    for second in 1...60 {
      await clock.advance(by: .seconds(1))
      await store.receive(["type": "path", "id": 2, "action": "tick"]) {
        $0.path.screens[2].state.seconds_elapsed = .integer(second)
        if second == 30 { $0.path.screens[2].state.speaker_index = 2 }
        if second == 60 { $0.path.screens[2].state.transcribing = true }
      }
    }
    await store.receive(
      where: { $0.action.type == "transcript_received" }, timeout: .seconds(30)
    ) {
      $0.path.screens[2].state.transcribing = .nil
      let meeting: LuaValue = ["id": Self.uuid(0), "date": 1_700_000_000, "transcript": "We shipped it."]
      // One sync-up, shared by the list and both screens: the meeting shows in all three.
      $0.syncups[1].meetings[1] = meeting
      $0.path.screens[1].state.syncup.meetings[1] = meeting
      $0.path.screens[2].state.syncup.meetings[1] = meeting
    }
    await store.receive(["type": "path", "id": 2, "action": "dismiss"]) {
      $0.path.screens[2] = .nil
    }
    await clock.advance(by: .seconds(1))
    await store.finish()
    #expect(server.received.map(\.method) == ["POST"])
    let body = try JSONSerialization.jsonObject(with: Data(server.received[0].body))
    let fields = body as? [String: Any]
    #expect(fields?["syncup"] as? String == "Daily" && fields?["seconds"] as? Int == 60)
  }

  @Test func aSyncUpIsDeletedAfterTheConfirmationDialog() async throws {
    let clock = TestClock()
    let store = try Self.store(state: Self.onDetail(), clock: clock)
    let dialog: LuaValue = [
      "screen": "confirmation_dialog",
      "state": [
        "title": "Delete?", "message": "Are you sure you want to delete this sync-up?",
        "buttons": [
          ["label": "Yes", "role": "destructive", "action": ["type": "confirm_delete"]],
          ["label": "Nevermind", "role": "cancel"],
        ],
      ],
    ]
    await store.send(["type": "path", "id": 1, "action": "delete_tapped"]) {
      $0.path.screens[1].state.destination = dialog
    }
    // A button none of the dialog's buttons sends is refused, naming what they send.
    await withKnownIssue {
      await store.send([
        "type": "path", "id": 1, "action": ["type": "destination", "action": "confirm_delet"],
      ])
    } matching: { issue in
      "\(issue)".contains(#"has no button that sends { type = "confirm_delet" }"#)
    }
    await store.send([
      "type": "path", "id": 1, "action": ["type": "destination", "action": "confirm_delete"],
    ]) {
      $0.path.screens[1].state.destination = .nil
    }
    await store.receive(["type": "path", "id": 1, "action": "delegate_delete"]) {
      $0.syncups = []
    }
    await store.receive(["type": "path", "id": 1, "action": "dismiss"]) {
      $0.path.screens = []
    }
    await clock.advance(by: .seconds(1))
    await store.finish()
  }
}
