import LuaKit

/// `effect.merge(e1, e2, ...)`: runs the effects at once.
enum MergeEffect: LuaEffectKind {
  static let name = "merge"
  static let fields = ["effects"]

  static func effect(
    from table: LuaTable, at path: String, in interpreter: LuaEffectInterpreter
  ) throws(LuaFeatureError) -> LuaEffect {
    .merge(try interpreter.effects(table["effects"], at: path + ".effects"))
  }
}
