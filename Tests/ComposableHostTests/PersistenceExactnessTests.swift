import Composable
import ComposableHost
import ComposableLua
import Foundation
import LuaDataGenerators
import LuaKit
import Testing

/// Persistence is exact: random states of every kind, every byte, tables shared at several
/// places, and depth up to the limit are saved and restored equal and shared alike, through the
/// saved file and through sessions; what the state holds can be saved, what is saved restored.
@Suite struct PersistenceExactnessTests {
  /// A feature that saves its whole state; `write_through` writes through `a` and `list[1]`.
  static let source = #"""
    local composable = require("composable")
    return {
      persist = composable.persist{ path = "kept.saved.lua" },
      initial_state = function() return {} end,
      reduce = function(state, action)
        if action.type == "write_through" then
          state.a.x = "written through a"
          state.list[1].y = "written through list[1]"
        elseif action.type == "function_key" then
          state.keys = { [print] = 1 }
        elseif action.type == "coroutine_key" then
          state.keys = { [coroutine.create(print)] = 1 }
        elseif action.type == "deepen" then
          local level = state
          for _ = 1, action.levels - 1 do
            level.next = level.next or {}
            level = level.next
          end
        end
      end,
    }
    """#

  static func feature() throws -> LuaFeature { try LuaFeature(source: source, file: "kept.lua") }

  static func send(_ action: LuaValue, to feature: LuaFeature) throws {
    try feature.step(action)
  }

  /// Saves what `feature` holds and restores it into `restarted`: what it restored.
  static func saveAndRestore(
    _ feature: LuaFeature, into restarted: LuaFeature
  ) async throws -> LuaValue {
    let files = FileClient.inMemory()
    try await files.write("kept.saved.lua", try #require(try feature.persistedFile()))
    let loaded = try await restarted.restorePersisted(files: files) { Issue.record("\($0)") }
    guard case .saved = loaded else {
      Issue.record("expected the saved state, got \(loaded)")
      return .nil
    }
    return try restarted.state()
  }

  @Test func randomStatesAreSavedAndRestoredEqualAndSharedAlike() async throws {
    let feature = try Self.feature()
    let restarted = try Self.feature()
    var make = RandomLuaData(seed: 2027_01_29)
    for iteration in 0..<150 {
      let state = make.state(deepest: iteration % 10 == 0 ? 200 : nil)
      try feature.setState(state)
      let held = try feature.state()
      #expect(held == state, "iteration \(iteration): the state is not what was set")
      #expect(held.sharingShape == state.sharingShape, "iteration \(iteration)")
      let restored = try await Self.saveAndRestore(feature, into: restarted)
      #expect(restored == state, "iteration \(iteration)")
      #expect(restored.sharingShape == state.sharingShape, "iteration \(iteration)")
      if restored != state { return }
    }
  }

  /// After a restart a table that two places held is still one table: writing through one
  /// place shows at the other.
  @Test func aSharedTableIsStillSharedAfterARestart() async throws {
    let feature = try Self.feature()
    let shared: LuaValue = ["name": "one table"]
    try feature.setState(["a": shared, "b": shared, "list": [shared, shared]])
    let restarted = try Self.feature()
    _ = try await Self.saveAndRestore(feature, into: restarted)
    try Self.send(["type": "write_through"], to: restarted)
    let state = try restarted.state()
    #expect(state.b.x == "written through a")
    #expect(state.list[2].x == "written through a")
    #expect(state.b.y == "written through list[1]")
    #expect(state.a.tableValue?.identity == state.list[2].tableValue?.identity)
  }

  /// The deepest state a reducer can make is saved and restored; one level more fails the
  /// action that makes it, naming the place: never saved and then refused at the next start.
  @Test func theDepthAReducerMakesIsTheDepthRestored() async throws {
    let feature = try Self.feature()
    try Self.send(["type": "deepen", "levels": 200], to: feature)
    let restored = try await Self.saveAndRestore(feature, into: try Self.feature())
    #expect(restored == (try feature.state()))
    var depth = 1
    var level = restored
    while level.next != .nil {
      depth += 1
      level = level.next
    }
    #expect(depth == 200)

    // One level more fails the action that makes it, so it is never there to save.
    let deeper = try Self.feature()
    #expect {
      try Self.send(["type": "deepen", "levels": 201], to: deeper)
    } throws: { error in
      "\(error)".contains("the state would be nested more than 200 levels deep, at state.next")
    }
    #expect(try deeper.persistedFile()?.isEmpty == false)
  }

  /// A function or coroutine used as a key never reaches a saved file: the write is refused in
  /// the reducer, or else the save is, naming the field; it is never saved and then refused at
  /// the next start.
  @Test(arguments: ["function_key", "coroutine_key"])
  func aKeyThatIsNotDataIsNeverSaved(action: String) throws {
    let feature = try Self.feature()
    do {
      try Self.send(["type": .string(LuaString(action))], to: feature)
    } catch {
      #expect(try feature.state() == [:])  // refused at the write, rolled back
      return
    }
    do {
      _ = try feature.persistedFile()
      Issue.record("a key that is not data was saved")
    } catch {
      #expect("\(error)".hasPrefix("state.keys: a key that is "), "\(error)")
      #expect("\(error)".hasSuffix(" cannot be saved"), "\(error)")
    }
  }

  /// A saved file one level deeper than a state may be is refused at the start with its line
  /// and column, and moved aside.
  @Test func aSavedFileDeeperThanTheLimitIsRefusedWithItsPlace() async throws {
    let text = "return " + String(repeating: "{ n = ", count: 200) + "{}" + String(
      repeating: " }", count: 200)
    let files = FileClient.inMemory(["kept.saved.lua": text])
    let loaded = try await Self.feature().restorePersisted(files: files) { _ in }
    guard case let .corrupt(why, _) = loaded else {
      Issue.record("expected refused, got \(loaded)")
      return
    }
    #expect(why == "it is not a saved state: syntax error: kept.saved.lua:1:1208: nested more "
      + "than 200 levels deep")
  }

  /// Sessions keep every value exactly too: random initial states and actions, shared tables
  /// among them, written with `:save`'s writer and read back; the initial state goes into a
  /// feature as shared as it was.
  @Test func sessionsKeepStatesAndActionsEqualAndSharedAlike() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "exactness-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let featureFile = directory.appendingPathComponent("kept.lua")
    try Self.source.write(to: featureFile, atomically: true, encoding: .utf8)
    var make = RandomLuaData(seed: 2027_01_30)
    for iteration in 0..<40 {
      let state = make.state(deepest: iteration % 8 == 0 ? 200 : nil)
      var actions: [RecordedAction] = []
      for number in 0..<3 {
        var action = make.state(fields: 3, deepest: number == 2 && iteration % 8 == 0 ? 200 : nil)
        action.type = "write_through"
        if number == 1, iteration % 8 != 0 { action.state_again = state }  // shared by both
        // The last sent back by the effect the first returned (a session reader refuses an
        // action from an effect with none before it).
        actions.append(
          RecordedAction(
            action: action, fromEffect: number == 2, time: Double(number),
            effect: number == 0 ? ["kind": "send"] : .nil))
      }
      let recording = SessionRecording(
        feature: "kept.lua", code: "fnv1a64:0", env: ["env": make.value(depth: 2)],
        initialState: state, actions: actions)
      let url = directory.appendingPathComponent("session\(iteration).lua")
      try recording.write(to: url)
      let read = try SessionRecording.read(from: url)
      #expect(read == recording, "iteration \(iteration)")
      #expect(read.luaValue.sharingShape == recording.luaValue.sharingShape, "iteration \(iteration)")
      let replayed = try LuaFeature(contentsOf: featureFile, state: read.initialState, env: [:])
      let held = try replayed.state()
      #expect(held == state, "iteration \(iteration)")
      #expect(held.sharingShape == state.sharingShape, "iteration \(iteration)")
      if read != recording { return }
    }
  }
}
