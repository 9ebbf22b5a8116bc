import LuaKit

/// The action shape, defined here and nowhere else: a table with a string `type`, or a bare
/// string as shorthand for `{ type = s }`. The step checks it in C before the reducer runs (the
/// feature's `LuaTransactionCall` is tagged with `typeField`); effects check the actions they
/// carry with `normalize`; both say what is wrong in the same words. (Lua's `composable`
/// library turns a bare string into the table the same way, in `as_action`.)
public enum LuaAction {
  /// The field that names an action: the field LuaKit's encoder names an enum's case with, so a
  /// Swift action enum marshals straight to this shape and back.
  public static let typeField = LuaEncoder.enumCaseField

  /// Why a value is not an action, in the words the step's own check uses.
  public struct Malformed: Error, Equatable {
    /// What is wrong, naming what was found instead of an action.
    public let message: String
  }

  /// The action as a table: `"increment"` becomes `{ type = "increment" }`.
  public static func normalize(_ value: LuaValue) throws(Malformed) -> LuaValue {
    if case .string = value { return .table(LuaTable(entries: [typeKey: value])) }
    if let problem = problem(value) { throw Malformed(message: problem) }
    return value
  }

  /// `normalize`, and inside it the composition's `action` fields too (`{ type = "todo", id = 1,
  /// action = "toggle" }` is `{ ..., action = { type = "toggle" } }`, as the wrapper that sends
  /// it back makes it): what a test expects is matched against what arrived.
  public static func normalizeNested(_ value: LuaValue) throws(Malformed) -> LuaValue {
    var action = try normalize(value)
    normalizeChildren(&action, depth: 0)
    return action
  }

  private static func normalizeChildren(_ action: inout LuaValue, depth: Int) {
    guard depth < LuaValue.maximumDepth, case var .table(table) = action else { return }
    let key = LuaValue.string(LuaString("action"))
    switch table[key] {
    case let .string(type):
      table[key] = .table(LuaTable(entries: [typeKey: .string(type)]))
    case var child where child.tableValue?[typeKey].stringValue != nil:
      normalizeChildren(&child, depth: depth + 1)
      table[key] = child
    default:
      return
    }
    action = .table(table)
  }

  /// Why `value` is not an action, or nil when it is one.
  static func problem(_ value: LuaValue) -> String? {
    let found: String
    switch value {
    case .string: return nil
    case let .table(table):
      if case .string = table[typeKey] { return nil }
      found = "a table whose type is \(luaTypeName(table[typeKey]))"
    default:
      found = luaTypeName(value)
    }
    return "expected an action (a table with a string type, or a string), got \(found)"
  }

  /// What an action may hold, for messages about one that holds something else.
  public static let dataRule =
    "an action holds nil, booleans, numbers, strings and tables of these, as the state does"

  static let typeKey = LuaValue.string(LuaString(typeField))

  /// The name Lua's `type()` gives `value` (messages about actions speak Lua).
  private static func luaTypeName(_ value: LuaValue) -> String {
    switch value {
    case .integer, .number: return "number"
    default: return value.typeName
    }
  }
}
