import LuaKit

/// `effect.throttle(e, id, seconds, { latest = false })`: at most one `e` per `seconds` under
/// `id`, the latest or the first.
enum ThrottleEffect: LuaEffectKind {
  static let name = "throttle"
  static let fields = ["effect", "id", "seconds", "latest"]

  static func effect(
    from table: LuaTable, at path: String, in interpreter: LuaEffectInterpreter
  ) throws(LuaFeatureError) -> LuaEffect {
    let inner = try interpreter.effect(from: table["effect"], at: path + ".effect")
    return inner.throttle(
      id: try interpreter.identifier(table["id"], at: path + ".id"),
      for: try interpreter.duration(table["seconds"], at: path + ".seconds"),
      clock: interpreter.clock,
      latest: try interpreter.flag(table["latest"], at: path + ".latest", otherwise: true))
  }
}
