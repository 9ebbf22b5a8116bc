import Composable
import LuaKit

/// An effect of a Lua feature: its actions are Lua values.
typealias LuaEffect = Effect<LuaValue>

/// One kind of effect `composable.effect` makes (the `kind` of its tables), defined whole in
/// its own file of this folder. `LuaEffectKinds.all` lists them; the interpreter dispatches
/// through that list, and EffectKindsListTests checks the Lua library, its LuaLS annotations
/// and docs/lua-api.md against it, so a kind cannot be half added.
protocol LuaEffectKind: Sendable {
  /// The `kind` of its tables, and its constructor's name: `effect.<name>`.
  static var name: String { get }

  /// The fields its tables may have besides `kind`: those its constructor in
  /// composable.effect.lua makes, and `wrappers` where composition (`map_effect`) adds them.
  static var fields: [String] { get }

  /// The effect `table` describes, every field checked now, while the action that returned it
  /// can still fail and be rolled back: a wrong field is named by its `path`.
  static func effect(
    from table: LuaTable, at path: String, in interpreter: LuaEffectInterpreter
  ) throws(LuaFeatureError) -> LuaEffect
}
