import LuaKit

/// `effect.send(action)`: feeds `action` back right after this one.
enum SendEffect: LuaEffectKind {
  static let name = "send"
  static let fields = ["action", "wrappers"]

  /// What it is in Lua: its constructor in composable.effect, its LuaLS annotation and its
  /// row in docs/lua-api.md (scripts/generate-effect-kinds copies each there).
  static let lua = LuaEffectKindSource(
    constructor: """
      function effect.send(action) return { kind = "send", action = action } end
      """,
    annotation: """
      ---Feeds `action` back into the store right after this one.
      ---@param action Action|string
      ---@return Effect
      function effect.send(action) end
      """,
    row:
      "| `effect.send(action)` | Feeds `action` back right after this one. |")

  static func effect(
    from table: LuaTable, at path: String, in interpreter: LuaEffectInterpreter
  ) throws(LuaFeatureError) -> LuaEffect {
    // Held too: a send may wait its turn in a concatenation or behind a throttle.
    let action = try interpreter.wrappedAction(table, at: path, effect: "effect.send")
    return try interpreter.held(.send(action), data: action, at: path)
  }
}
