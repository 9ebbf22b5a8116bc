import LuaKit

/// `effect.concat(e1, e2, ...)`: runs the effects one after another.
enum ConcatEffect: LuaEffectKind {
  static let name = "concat"
  static let fields = ["effects"]

  /// What it is in Lua: its constructor in composable.effect, its LuaLS annotation and its
  /// row in docs/lua-api.md (scripts/generate-effect-kinds copies each there).
  static let lua = LuaEffectKindSource(
    constructor: """
      function effect.concat(...) return { kind = "concat", effects = { ... } } end
      """,
    annotation: """
      ---Runs the effects one after another.
      ---@param ... Effect?
      ---@return Effect
      function effect.concat(...) end
      """,
    row:
      "| `effect.concat(e1, e2, ...)` | Runs them one after another. |")

  static func effect(
    from table: LuaTable, at path: String, in interpreter: LuaEffectInterpreter
  ) throws(LuaFeatureError) -> LuaEffect {
    .concatenate(try interpreter.effects(table["effects"], at: path + ".effects"))
  }
}
