import LuaKit

/// `effect.debounce(e, id, seconds)`: starts `e` after `seconds` of quiet under `id`.
enum DebounceEffect: LuaEffectKind {
  static let name = "debounce"
  static let fields = ["effect", "id", "seconds"]

  /// What it is in Lua: its constructor in composable.effect, its LuaLS annotation and its
  /// row in docs/lua-api.md (scripts/generate-effect-kinds copies each there).
  static let lua = LuaEffectKindSource(
    constructor: """
      function effect.debounce(inner, id, seconds)
        return { kind = "debounce", effect = inner, id = id, seconds = seconds }
      end
      """,
    annotation: """
      ---Starts `inner` after `seconds` of quiet under `id`.
      ---@param inner Effect?
      ---@param id string|number|boolean
      ---@param seconds number
      ---@return Effect
      function effect.debounce(inner, id, seconds) end
      """,
    row:
      "| `effect.debounce(e, id, seconds)` | Starts `e` after `seconds` of quiet under `id`. |")

  static func effect(
    from table: LuaTable, at path: String, in interpreter: LuaEffectInterpreter
  ) throws(LuaFeatureError) -> LuaEffect {
    let inner = try interpreter.effect(from: table["effect"], at: path + ".effect")
    return inner.debounce(
      id: try interpreter.identifier(table["id"], at: path + ".id"),
      for: try interpreter.duration(table["seconds"], at: path + ".seconds"),
      clock: interpreter.clock)
  }
}
