import LuaKit

/// `effect.debounce(e, id, seconds)`: starts `e` after `seconds` of quiet under `id`.
enum DebounceEffect: LuaEffectKind {
  static let name = "debounce"
  static let fields = ["effect", "id", "seconds"]

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
