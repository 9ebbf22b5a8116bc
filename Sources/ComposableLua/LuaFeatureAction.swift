import LuaKit

/// An action on its way into a feature's reducer: a Lua value, a typed action that pushes itself,
/// or a Swift value encoded straight onto the Lua stack (the Codable reducer's actions:
/// marshalled once, not encoded, read back and pushed again).
enum LuaFeatureAction {
  case value(LuaValue)
  case typed(any LuaActionConvertible)
  /// `describe` names the action in messages, only when one is needed.
  case encoded(LuaArgument, describe: @Sendable () -> String)

  /// The action in messages: a Lua value in the action shape, or what `describe` says.
  var description: String { describe() }

  /// The same, as a closure an effect keeps for the messages of its later failures.
  var describe: @Sendable () -> String {
    switch self {
    case let .value(value): return { ((try? LuaAction.normalize(value)) ?? value).description }
    case let .typed(action): return { "\(action)" }
    case let .encoded(_, describe): return describe
    }
  }
}
