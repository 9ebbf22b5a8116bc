import LuaKit

/// `effect.none`: no work (as returning `nil` is; that never reaches the kinds).
enum NoneEffect: LuaEffectKind {
  static let name = "none"
  static let fields: [String] = []

  /// What it is in Lua: its constructor in composable.effect, its LuaLS annotation and its
  /// row in docs/lua-api.md (scripts/generate-effect-kinds copies each there).
  static let lua = LuaEffectKindSource(
    constructor: """
      -- Shared by every feature that returns it: a field added to it would break each of them, so it
      -- takes none (and its metatable cannot be changed).
      effect.none = setmetatable({ kind = "none" }, {
        __newindex = function(_, key)
          error(string.format("effect.none is shared and takes no field (%s); make an effect of your own",
            tostring(key)), 2)
        end,
        __metatable = false,
      })
      """,
    annotation: """
      ---No work.
      ---@type Effect
      effect.none = nil
      """,
    row:
      "| `effect.none` | Nothing (so is returning `nil`). |")

  static func effect(
    from table: LuaTable, at path: String, in interpreter: LuaEffectInterpreter
  ) throws(LuaFeatureError) -> LuaEffect {
    .none
  }
}
