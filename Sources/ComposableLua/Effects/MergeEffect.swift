import LuaKit

/// `effect.merge(e1, e2, ...)`: runs the effects at once.
enum MergeEffect: LuaEffectKind {
  static let name = "merge"
  static let fields = ["effects"]

  /// What it is in Lua: its constructor in composable.effect, its LuaLS annotation and its
  /// row in docs/lua-api.md (scripts/generate-effect-kinds copies each there).
  static let lua = LuaEffectKindSource(
    constructor: """
      function effect.merge(...) return { kind = "merge", effects = { ... } } end
      """,
    annotation: """
      ---Runs the effects at once.
      ---@param ... Effect?
      ---@return Effect
      function effect.merge(...) end
      """,
    row:
      "| `effect.merge(e1, e2, ...)` | Runs them at once. |")

  static func effect(
    from table: LuaTable, at path: String, in interpreter: LuaEffectInterpreter
  ) throws(LuaFeatureError) -> LuaEffect {
    .merge(try interpreter.effects(table["effects"], at: path + ".effects"))
  }
}
