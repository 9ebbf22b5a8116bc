import LuaKit

/// `effect.none`: no work (as returning `nil` is; that never reaches the kinds).
enum NoneEffect: LuaEffectKind {
  static let name = "none"
  static let fields: [String] = []

  static func effect(
    from table: LuaTable, at path: String, in interpreter: LuaEffectInterpreter
  ) throws(LuaFeatureError) -> LuaEffect {
    .none
  }
}
