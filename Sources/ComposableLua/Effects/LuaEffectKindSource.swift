/// What a kind of effect is on the Lua side, written in its Swift file beside its
/// interpretation so that the kind is defined in one place: scripts/generate-effect-kinds
/// copies each part into the file that needs it (`LuaEffectKinds.generatedFiles`), and
/// EffectKindsGeneratedTests fails when a copy differs from its kind's file.
struct LuaEffectKindSource: Sendable {
  /// Its constructor in composable.effect.lua (and the functions an `effect.run` coroutine
  /// calls to ask the same thing), Lua run under the library's `local effect = {}`, with its
  /// `yield` and `options_of` in scope.
  let constructor: String
  /// Its LuaLS annotation in types/composable.effect.meta.lua.
  let annotation: String
  /// Its row in the table of effects of docs/lua-api.md.
  let row: String
}
