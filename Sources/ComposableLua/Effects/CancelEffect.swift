import LuaKit

/// `effect.cancel(id)`: cancels what runs under `id`.
enum CancelEffect: LuaEffectKind {
  static let name = "cancel"
  // `wrappers`: `map_effect` puts them on every kind it does not look inside; a cancel sends
  // nothing for them to wrap.
  static let fields = ["id", "wrappers"]

  static func effect(
    from table: LuaTable, at path: String, in interpreter: LuaEffectInterpreter
  ) throws(LuaFeatureError) -> LuaEffect {
    .cancel(id: try interpreter.identifier(table["id"], at: path + ".id"))
  }
}
