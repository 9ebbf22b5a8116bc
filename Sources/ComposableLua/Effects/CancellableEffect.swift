import LuaKit

/// `effect.cancellable(e, id, { cancel_in_flight = true })`: `e`, cancellable by `id`.
enum CancellableEffect: LuaEffectKind {
  static let name = "cancellable"
  static let fields = ["effect", "id", "cancel_in_flight"]

  /// What it is in Lua: its constructor in composable.effect, its LuaLS annotation and its
  /// row in docs/lua-api.md (scripts/generate-effect-kinds copies each there).
  static let lua = LuaEffectKindSource(
    constructor: """
      function effect.cancellable(inner, id, options)
        options = options_of("effect.cancellable", options, { "cancel_in_flight" })
        return {
          kind = "cancellable", effect = inner, id = id,
          cancel_in_flight = options.cancel_in_flight == true,
        }
      end
      """,
    annotation: """
      ---The effect, cancellable with `effect.cancel(id)`.
      ---@param inner Effect?
      ---@param id string|number|boolean
      ---@param options? { cancel_in_flight: boolean }
      ---@return Effect
      function effect.cancellable(inner, id, options) end
      """,
    row:
      "| `effect.cancellable(e, id, { cancel_in_flight = true })` | `e`, cancellable by `id`; `cancel_in_flight` cancels what runs under `id` first. |"
  )

  static func effect(
    from table: LuaTable, at path: String, in interpreter: LuaEffectInterpreter
  ) throws(LuaFeatureError) -> LuaEffect {
    let inner = try interpreter.effect(from: table["effect"], at: path + ".effect")
    return inner.cancellable(
      id: try interpreter.identifier(table["id"], at: path + ".id"),
      cancelInFlight: try interpreter.flag(
        table["cancel_in_flight"], at: path + ".cancel_in_flight", otherwise: false))
  }
}
