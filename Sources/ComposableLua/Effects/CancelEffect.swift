import LuaKit

/// `effect.cancel(id)`: cancels what runs under `id`.
enum CancelEffect: LuaEffectKind {
  static let name = "cancel"
  // `wrappers`: `map_effect` puts them on every kind it does not look inside; a cancel sends
  // nothing for them to wrap.
  static let fields = ["id", "wrappers"]

  /// What it is in Lua: its constructor in composable.effect, its LuaLS annotation and its
  /// row in docs/lua-api.md (scripts/generate-effect-kinds copies each there).
  static let lua = LuaEffectKindSource(
    constructor: """
      function effect.cancel(id) return { kind = "cancel", id = id } end
      """,
    annotation: """
      ---Cancels the effects running under `id`.
      ---@param id string|number|boolean
      ---@return Effect
      function effect.cancel(id) end
      """,
    row:
      "| `effect.cancel(id)` | Cancels what runs under `id`. |")

  static func effect(
    from table: LuaTable, at path: String, in interpreter: LuaEffectInterpreter
  ) throws(LuaFeatureError) -> LuaEffect {
    .cancel(id: try interpreter.identifier(table["id"], at: path + ".id"))
  }
}
