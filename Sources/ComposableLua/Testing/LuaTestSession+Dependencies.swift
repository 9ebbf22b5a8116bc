import Composable
import Foundation
import IssueReporting
import LuaKit

/// The clients a Lua test gives `TestStore.new` (`uuid`, `now`, `answers`), made into the
/// store's dependencies. Those of the request kinds (`http`, `files`) are made by their kinds
/// (`LuaEffectRequestKind.fake`, in Effects/).
extension LuaTestSession {
  func uuidGenerator(_ value: LuaValue) throws -> UUIDGenerator? {
    switch value {
    case .nil: return Self.unprovidedUUID
    case let .string(kind) where kind.description == "incrementing": return .incrementing
    default: throw LuaTestError("TestStore.new: uuid must be \"incrementing\", got \(value)")
    }
  }

  /// What `env.uuid()` gives in a test that gave no `uuid`: a failure, in Lua's words.
  static let unprovidedUUID = UUIDGenerator {
    reportIssue(
      """
      A test used "uuid" without providing it (env.uuid()).

      To fix, give the TestStore a generator: TestStore.new{ ..., uuid = "incrementing" } \
      (00000000-0000-0000-0000-000000000000, then ...001).
      """)
    return UUID(uuidString: "DEADBEEF-DEAD-BEEF-DEAD-BEEFDEADBEEF")!
  }

  /// What `env.now()` gives in a test that gave no `now`: a failure, in Lua's words.
  static let unprovidedDate = DateGenerator {
    reportIssue(
      """
      A test used "date" without providing it (env.now()).

      To fix, give the TestStore a time: TestStore.new{ ..., now = 1700000000 } (seconds since \
      1970).
      """)
    return Date(timeIntervalSince1970: 0)
  }

  /// `answers = { uuid = { ... }, now = { ... }, random = { ... }, effects = { ... } }`: what
  /// `env.uuid()`, `env.now()` and `env.random()` answer the reducer, each function's in order,
  /// and under `effects` what they answer effects' coroutines: the same three lists for any
  /// effect, and under `[N]` three lists for the effects the Nth action the store reduced
  /// started (a test written from a recorded session gives the answers the session got).
  func answersTape(_ value: LuaValue) throws -> LuaEnvironmentTape {
    let reducers = try answerLists(value, field: "answers", allowsEffects: true)
    var effects: [String: [LuaValue]] = [:]
    var effectsOfActions: [Int: [String: [LuaValue]]] = [:]
    if let given = reducers.effects {
      let all = try answerLists(given, field: "answers.effects", allowsActions: true)
      effects = all.lists
      for (action, lists) in all.actions {
        effectsOfActions[action] =
          try answerLists(lists, field: "answers.effects[\(action)]").lists
      }
    }
    return LuaEnvironmentTape(
      playing: reducers.lists, effects: effects, effectsOfActions: effectsOfActions)
  }

  /// The lists of one `answers` table (`field` names it in errors), its `effects` table (when
  /// `allowsEffects`), and its tables under action numbers (when `allowsActions`).
  private func answerLists(
    _ value: LuaValue, field: String, allowsEffects: Bool = false, allowsActions: Bool = false
  ) throws -> (lists: [String: [LuaValue]], effects: LuaValue?, actions: [Int: LuaValue]) {
    guard let table = value.tableValue else {
      throw LuaTestError(
        "TestStore.new: \(field) must be a table, got \(LuaValue.describeForMessage(value))")
    }
    var answers: [String: [LuaValue]] = [:]
    var effects: LuaValue?
    var actions: [Int: LuaValue] = [:]
    let names = ["now", "random", "uuid"]
    let fields = names + (allowsEffects ? ["effects"] : [])
    for (key, list) in table.sortedEntries {
      if allowsEffects, key == "effects" {
        effects = list
        continue
      }
      if allowsActions, case let .integer(action) = key, action >= 1 {
        actions[action] = list
        continue
      }
      guard let name = key.stringValue, names.contains(name) else {
        let near = key.stringValue.flatMap { NearestName.nearest(to: $0, among: fields) }
        throw LuaTestError(
          "TestStore.new: \(field) has no field \(key.namedInMessage)"
            + (near.map { " (did you mean \($0)?)" } ?? "")
            + "; it maps uuid, now and random to lists of answers"
            + (allowsEffects ? ", and effects to a table of such lists" : "")
            + (allowsActions
              ? ", and an action's number (from 1) to such lists for the effects it started"
              : ""))
      }
      guard let values = list.tableValue, values.isSequence || values.isEmpty else {
        throw LuaTestError(
          "TestStore.new: \(field).\(name) must be a list of answers, got "
            + LuaValue.describeForMessage(list))
      }
      answers[name] = values.sequence
    }
    return (answers, effects, actions)
  }
}
