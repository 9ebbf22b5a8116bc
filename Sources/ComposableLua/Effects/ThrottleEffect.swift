import LuaKit

/// `effect.throttle(e, id, seconds, { latest = false })`: at most one `e` per `seconds` under
/// `id`, the latest or the first.
enum ThrottleEffect: LuaEffectKind {
  static let name = "throttle"
  static let fields = ["effect", "id", "seconds", "latest"]

  /// What it is in Lua: its constructor in composable.effect, its LuaLS annotation and its
  /// row in docs/lua-api.md (scripts/generate-effect-kinds copies each there).
  static let lua = LuaEffectKindSource(
    constructor: """
      function effect.throttle(inner, id, seconds, options)
        options = options_of("effect.throttle", options, { "latest" })
        return {
          kind = "throttle", effect = inner, id = id, seconds = seconds,
          latest = options.latest ~= false,
        }
      end
      """,
    annotation: """
      ---Starts at most one effect every `seconds` under `id` (the latest, unless `latest = false`).
      ---@param inner Effect?
      ---@param id string|number|boolean
      ---@param seconds number
      ---@param options? { latest: boolean }
      ---@return Effect
      function effect.throttle(inner, id, seconds, options) end
      """,
    row:
      "| `effect.throttle(e, id, seconds, { latest = false })` | At most one `e` per `seconds` under `id`: the latest, or the first with `latest = false`. |"
  )

  static func effect(
    from table: LuaTable, at path: String, in interpreter: LuaEffectInterpreter
  ) throws(LuaFeatureError) -> LuaEffect {
    let inner = try interpreter.effect(from: table["effect"], at: path + ".effect")
    return inner.throttle(
      id: try interpreter.identifier(table["id"], at: path + ".id"),
      for: try interpreter.duration(table["seconds"], at: path + ".seconds"),
      clock: interpreter.clock,
      latest: try interpreter.flag(table["latest"], at: path + ".latest", otherwise: true))
  }
}
