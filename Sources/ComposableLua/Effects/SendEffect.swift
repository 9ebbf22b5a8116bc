import LuaKit

/// `effect.send(action)`: feeds `action` back right after this one.
enum SendEffect: LuaEffectKind {
  static let name = "send"
  static let fields = ["action", "wrappers"]

  static func effect(
    from table: LuaTable, at path: String, in interpreter: LuaEffectInterpreter
  ) throws(LuaFeatureError) -> LuaEffect {
    // Held too: a send may wait its turn in a concatenation or behind a throttle.
    let action = try interpreter.wrappedAction(table, at: path, effect: "effect.send")
    return try interpreter.held(.send(action), data: action, at: path)
  }
}
