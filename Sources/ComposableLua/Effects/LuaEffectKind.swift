import Composable
import LuaKit

/// An effect of a Lua feature: its actions are Lua values.
typealias LuaEffect = Effect<LuaValue>

/// One kind of effect `composable.effect` makes (the `kind` of its tables), defined whole in
/// its own file of this folder: its fields, its interpretation and its Lua side (constructor,
/// LuaLS annotation, docs row), which scripts/generate-effect-kinds copies into the library,
/// its annotations and docs/lua-api.md. `LuaEffectKinds.all` lists them; the interpreter
/// dispatches through that list, and EffectKindsListTests checks the constructors' tables
/// against it, so a kind cannot be half added.
protocol LuaEffectKind: Sendable {
  /// The `kind` of its tables, and its constructor's name: `effect.<name>`.
  static var name: String { get }

  /// The fields its tables may have besides `kind`: those its constructor in
  /// composable.effect.lua makes, and `wrappers` where composition (`map_effect`) adds them.
  static var fields: [String] { get }

  /// Its constructor, LuaLS annotation and docs row: the Lua side of it, written here and
  /// copied where Lua, editors and readers look (`LuaEffectKindsGeneratedFile`).
  static var lua: LuaEffectKindSource { get }

  /// The effect `table` describes, every field checked now, while the action that returned it
  /// can still fail and be rolled back: a wrong field is named by its `path`.
  static func effect(
    from table: LuaTable, at path: String, in interpreter: LuaEffectInterpreter
  ) throws(LuaFeatureError) -> LuaEffect
}
