import Composable
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// Swift actions that push themselves into Lua (`LuaActionConvertible`), with no `LuaValue` or
/// encoder in between.
@Suite struct TypedActionTests {
  enum NoteAction: Codable, Equatable, Sendable, LuaActionConvertible {
    case clear
    case add(id: Int, text: String, weight: Double, done: Bool)
    case relabel(id: Int, labels: LuaValue)

    var luaType: LuaName {
      switch self {
      case .clear: Names.clear
      case .add: Names.add
      case .relabel: Names.relabel
      }
    }

    func writeFields(to action: inout LuaTableWriter) throws(LuaError) {
      switch self {
      case .clear: break
      case let .add(id, text, weight, done):
        try action.set(Names.id, id)
        try action.set(Names.text, text)
        try action.set(Names.weight, weight)
        try action.set(Names.done, done)
      case let .relabel(id, labels):
        try action.set(Names.id, id)
        try action.set(Names.labels, labels)
      }
    }

    enum Names {
      static let clear: LuaName = "clear", add: LuaName = "add", relabel: LuaName = "relabel"
      static let id: LuaName = "id", text: LuaName = "text", weight: LuaName = "weight"
      static let done: LuaName = "done", labels: LuaName = "labels"
    }
  }

  /// Keeps every action it gets, whole, and answers `add` of id 0 with a `clear` sent back.
  static let notes = """
    local effect = require("composable.effect")
    return {
      initial_state = function() return { seen = {} } end,
      reduce = function(state, action)
        table.insert(state.seen, action)
        if action.type == "add" and action.id == 0 then return effect.send("clear") end
        if action.type == "relabel" then error("relabel refused") end
      end,
    }
    """

  static let actions: [NoteAction] = [
    .clear,
    .add(id: Int.min, text: "milk\r\nand \u{0}nul, ünïcode ✓", weight: -0.0, done: true),
    .add(id: Int.max, text: "", weight: .nan, done: false),
    .add(id: 3, text: "big", weight: 1e308, done: false),
    .add(id: 4, text: "inf", weight: -.infinity, done: true),
  ]

  /// Sends each action through the initializer generic code picks: the encoded one.
  static func encodedReducer<Action: Codable & Sendable>(
    _ feature: LuaFeature, _: Action.Type
  ) -> LuaFeatureCodableReducer<LuaFeatureHandle, Action> {
    LuaFeatureCodableReducer(feature: feature, dependencies: .test)
  }

  @Test func aTypedActionArrivesExactlyAsItsEncodedFormDoes() throws {
    let typedFeature = try LuaFeature(source: Self.notes, file: "notes.lua")
    let encodedFeature = try LuaFeature(source: Self.notes, file: "notes.lua")
    let typed = LuaFeatureCodableReducer<LuaFeatureHandle, NoteAction>(
      feature: typedFeature, dependencies: .test)
    let encoded = Self.encodedReducer(encodedFeature, NoteAction.self)
    var typedHandle = LuaFeatureHandle(feature: typedFeature)
    var encodedHandle = LuaFeatureHandle(feature: encodedFeature)
    for action in Self.actions {
      _ = typed.reduce(into: &typedHandle, action: action)
      _ = encoded.reduce(into: &encodedHandle, action: action)
    }
    let seen = try typedFeature.state().seen
    #expect(seen.tableValue?.count == Self.actions.count)
    #expect(seen == (try encodedFeature.state().seen))
    #expect(
      seen[2] == [
        "type": "add", "id": .integer(Int.min), "text": "milk\r\nand \u{0}nul, ünïcode ✓",
        "weight": .number(-0.0), "done": true,
      ])
    #expect(seen[3].weight.doubleValue?.isNaN == true)
    #expect(seen[1] == ["type": "clear"])
  }

  /// What an effect sends back decodes into the enum, and the store holds a handle: the state
  /// stays in Lua.
  @Test func effectsSendBackTypedActionsToAStoreThatHoldsAHandle() async throws {
    let feature = try LuaFeature(source: Self.notes, file: "notes.lua")
    let store = Store(
      initialState: LuaFeatureHandle(feature: feature),
      reducer: LuaFeatureCodableReducer<LuaFeatureHandle, NoteAction>(
        feature: feature, dependencies: .test))
    await store.send(.add(id: 0, text: "x", weight: 1, done: false)).finish()
    #expect(try feature.state().seen.tableValue?.count == 2)
    #expect(try feature.state().seen[2] == ["type": "clear"])
  }

  /// A field that cannot cross is named, under `action`, and the state is rolled back; so is a
  /// reducer that raises on a typed action.
  @Test func aTypedActionThatFailsRollsBackAndIsNamed() throws {
    let feature = try LuaFeature(source: Self.notes, file: "notes.lua")
    let errors = Locked<[String]>([])
    let reducer = LuaFeatureCodableReducer<LuaFeatureHandle, NoteAction>(
      feature: feature, dependencies: .test,
      onError: { error in errors.withLock { $0.append(error.description) } })
    var handle = LuaFeatureHandle(feature: feature)
    let nanKey = LuaValue.table(LuaTable(entries: [.zeroOverZero: 1]))
    _ = reducer.reduce(into: &handle, action: .relabel(id: 1, labels: nanKey))
    _ = reducer.reduce(into: &handle, action: .relabel(id: 1, labels: ["a"]))
    let messages = errors.withLock { $0 }
    #expect(messages.count == 2)
    #expect(
      messages.first
        == "the action relabel(id: 1, labels: { [0/0] = 1 }) was refused before the reducer ran: "
        + "action.labels: a table key cannot be NaN")
    #expect(messages.last?.contains("relabel refused") == true)
    #expect(try feature.state() == ["seen": []])
  }

  /// An action whose fields name `type` too (by mistake, or a `LuaValue` of any shape) still
  /// arrives with its own type, a string: the type is written last, and the action needs no
  /// check on the way in.
  @Test func aFieldNamedTypeCannotReplaceTheActionsType() throws {
    enum Mistyped: Codable, Sendable, LuaActionConvertible {
      case bump
      var luaType: LuaName { Self.bumpName }
      func writeFields(to action: inout LuaTableWriter) throws(LuaError) {
        try action.set(Self.typeName, ["not", "a", "string"] as LuaValue)
        try action.set(Self.sizeName, 3)
      }
      static let bumpName: LuaName = "bump", typeName: LuaName = "type", sizeName: LuaName = "size"
    }
    let feature = try LuaFeature(source: Self.notes, file: "notes.lua")
    let reducer = LuaFeatureCodableReducer<LuaFeatureHandle, Mistyped>(
      feature: feature, dependencies: .test)
    var handle = LuaFeatureHandle(feature: feature)
    _ = reducer.reduce(into: &handle, action: .bump)
    #expect(try feature.state() == ["seen": [["type": "bump", "size": 3]]])
  }
}
