import ComposableLua
import LuaKit

/// One action of a recorded session, with what a replay needs to reduce it as it was reduced.
public struct RecordedAction: Equatable, Sendable {
  /// The action the reducer was sent.
  public var action: LuaValue
  /// Sent back by an effect (an HTTP response, a timer's tick), not typed by the person.
  public var fromEffect: Bool
  /// When the store reduced it: seconds on the store's clock since the session began.
  public var time: Double
  /// What `env.uuid()`, `env.now()` and `env.random()` answered the reducer, in order.
  public var draws: [LuaEnvironmentTape.Draw]
  /// The effect the reducer returned (`LuaValue.effectDescription`); nil for none.
  public var effect: LuaValue
  /// The reducer's error when the action failed (and was rolled back); nil when it did not.
  public var error: String?
  /// The action wrote nothing, returned no effect and did not fail: it did nothing (a type the
  /// feature does not handle, say). Such an action cannot tell one feature from another.
  public var didNothing: Bool
  /// A jump in time (`:goto`, `:undo`, `:redo`) came before it and cancelled every effect
  /// running: a test of the session cancels them there too, or a timer of the branch left
  /// behind would go on sending in the test.
  public var afterJump: Bool
  /// Sent back with `effect.send` by an action reduced just before it (the one before, or one
  /// before that in the same chain), and reduced at once, before anything else could come: no
  /// run stands between the two, so time travel does not land there.
  public var sentAtOnce: Bool

  /// Records one action. `didNothing` is kept only when `effect` and `error` are both nil: an
  /// action that returned an effect or failed did something.
  ///
  /// ```swift
  /// let typed = RecordedAction(
  ///   action: ["type": "add", "title": "milk"], fromEffect: false, time: 0.5)
  /// let sentBack = RecordedAction(action: ["type": "tick"], fromEffect: true, time: 1.5)
  /// ```
  public init(
    action: LuaValue, fromEffect: Bool, time: Double, draws: [LuaEnvironmentTape.Draw] = [],
    effect: LuaValue = .nil, error: String? = nil, didNothing: Bool = false,
    afterJump: Bool = false, sentAtOnce: Bool = false
  ) {
    self.action = action
    self.fromEffect = fromEffect
    self.time = time
    self.draws = draws
    self.effect = effect
    self.error = error
    self.didNothing = didNothing && effect == .nil && error == nil
    self.afterJump = afterJump
    self.sentAtOnce = sentAtOnce && fromEffect
  }

  /// Whether the reducer raised on it (its changes then rolled back).
  public var failed: Bool { error != nil }

  /// Whether two errors of an action are the same but for where in the code they were raised
  /// and the local names Lua's message gives: a line added above the reducer moves every
  /// `file.lua:6:` it raises, and a local renamed changes `(local 'count')`. What a check of a
  /// reload and a replay both compare.
  static func sameError(_ one: String?, _ other: String?) -> Bool {
    guard let one, let other else { return one == other }
    func plain(_ error: String) -> String {
      error.replacing(#/:\d+:/#, with: ":").replacing(
        #/\((local|upvalue) '[^']*'\)/#, with: "(local)")
    }
    return plain(one) == plain(other)
  }

  /// Whether two effects an action returned do the same: what a check of a reload and a replay
  /// both compare, as `plainEffect` writes them (so `effect.none`, `effect.merge()` and no
  /// effect at all are one).
  static func sameEffect(_ one: LuaValue, _ other: LuaValue) -> Bool {
    asLuaCompares(plainEffect(one)) == asLuaCompares(plainEffect(other))
  }

  /// `value` with each float that is a whole number in an integer's range as that integer, keys
  /// too: Lua's `==` finds `100` and `100.0` equal, and an `effect.after(100)` that a change of
  /// code made `effect.after(100.0)` does the same (an attacker's finding: the replay failed).
  static func asLuaCompares(_ value: LuaValue) -> LuaValue {
    switch value {
    case let .number(float):
      if float.rounded() == float, float >= -0x1p63, float < 0x1p63 { return .integer(Int(float)) }
      return value
    case let .table(table):
      var plain = LuaTable()
      for (key, inner) in table.entries { plain[asLuaCompares(key)] = asLuaCompares(inner) }
      return .table(plain)
    default:
      return value
    }
  }

  /// The effect as what it does: `effect.none` and a merge or concatenation of nothing are no
  /// effect (nil); a merge or concatenation leaves out parts that are none, holds the parts of
  /// one of its own kind inside it as its own, and one part left is that part. An effect of
  /// another kind is as it is (a `cancellable` of none still cancels), the effect it wraps
  /// (`effect`) made plain too.
  static func plainEffect(_ effect: LuaValue) -> LuaValue {
    guard var table = effect.tableValue else { return effect }
    let kind = table["kind"]
    if kind == "none" { return .nil }
    if kind != "merge", kind != "concat", (table["effect"].tableValue?["kind"] ?? .nil) != .nil {
      table["effect"] = plainEffect(table["effect"])
      return .table(table)
    }
    guard kind == "merge" || kind == "concat", let parts = table["effects"].tableValue,
      table.entries.count == 2
    else { return effect }
    // In the order the parts come (`effect.merge(nil, e)` leaves a hole before e).
    let numbered = parts.entries.compactMap { key, value in key.intValue.map { ($0, value) } }
    guard numbered.count == parts.entries.count else { return effect }
    var kept: [LuaValue] = []
    for (_, part) in numbered.sorted(by: { $0.0 < $1.0 }) {
      let plain = plainEffect(part)
      if plain == .nil { continue }
      if let inner = plain.tableValue, inner["kind"] == kind {
        kept += inner["effects"].tableValue?.sequence ?? []
      } else {
        kept.append(plain)
      }
    }
    switch kept.count {
    case 0: return .nil
    case 1: return kept[0]
    default: return ["kind": kind, "effects": .table(LuaTable(array: kept))]
    }
  }
}

extension LuaFeatureError {
  /// The error as a recording keeps it: one line, the Lua message without the traceback and
  /// without the words about the action, which the recording holds beside it.
  var recordedMessage: String {
    switch self {
    case let .reduce(_, error), let .effect(_, error): error.message
    case let .malformedEffect(_, path, message): "\(path): \(message)"
    case let .malformedAction(_, message): message
    default: description
    }
  }
}
