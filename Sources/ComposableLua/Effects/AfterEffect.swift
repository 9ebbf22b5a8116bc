import LuaKit

/// `effect.after(seconds, action)`: sends `action` after `seconds` on the store's clock.
enum AfterEffect: LuaEffectKind {
  static let name = "after"
  static let fields = ["seconds", "action", "wrappers"]

  static func effect(
    from table: LuaTable, at path: String, in interpreter: LuaEffectInterpreter
  ) throws(LuaFeatureError) -> LuaEffect {
    // What is held is the action as sent, made by the wrappers (a `map_effect` may make a
    // larger one than it was given).
    let action = try interpreter.wrappedAction(table, at: path, effect: "effect.after")
    let seconds = try interpreter.duration(table["seconds"], at: path + ".seconds")
    return try interpreter.held(
      .after(seconds, clock: interpreter.clock, send: action), data: action, at: path)
  }
}
