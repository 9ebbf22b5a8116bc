import LuaKit

/// `effect.cancellable(e, id, { cancel_in_flight = true })`: `e`, cancellable by `id`.
enum CancellableEffect: LuaEffectKind {
  static let name = "cancellable"
  static let fields = ["effect", "id", "cancel_in_flight"]

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
