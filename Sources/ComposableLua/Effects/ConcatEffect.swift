import LuaKit

/// `effect.concat(e1, e2, ...)`: runs the effects one after another.
enum ConcatEffect: LuaEffectKind {
  static let name = "concat"
  static let fields = ["effects"]

  static func effect(
    from table: LuaTable, at path: String, in interpreter: LuaEffectInterpreter
  ) throws(LuaFeatureError) -> LuaEffect {
    .concatenate(try interpreter.effects(table["effects"], at: path + ".effects"))
  }
}
