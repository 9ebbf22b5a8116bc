import LuaKit

/// `effect.after(seconds, action)`: sends `action` after `seconds` on the store's clock.
enum AfterEffect: LuaEffectKind {
  static let name = "after"
  static let fields = ["seconds", "action", "wrappers"]

  /// What it is in Lua: its constructor in composable.effect, its LuaLS annotation and its
  /// row in docs/lua-api.md (scripts/generate-effect-kinds copies each there).
  static let lua = LuaEffectKindSource(
    constructor: """
      function effect.after(seconds, action)
        return { kind = "after", seconds = seconds, action = action }
      end
      """,
    annotation: """
      ---Sends `action` after `seconds` on the store's clock.
      ---@param seconds number
      ---@param action Action|string
      ---@return Effect
      function effect.after(seconds, action) end
      """,
    row:
      "| `effect.after(seconds, action)` | Sends `action` after `seconds`. |")

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
