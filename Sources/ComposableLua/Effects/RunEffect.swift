import LuaKit

/// `effect.run(function(send) ... end)`: async work in a coroutine, which `LuaEffectRunner.run`
/// drives; the request kinds' host calls (`http.get`, `file.read`...) are answered there.
enum RunEffect: LuaEffectKind {
  static let name = "run"
  static let fields = ["fn", "wrappers"]

  static func effect(
    from table: LuaTable, at path: String, in interpreter: LuaEffectInterpreter
  ) throws(LuaFeatureError) -> LuaEffect {
    guard case let .function(body) = table["fn"] else {
      throw interpreter.fail(
        path + ".fn", "expected the function of effect.run, got \(table["fn"].typeName)")
    }
    let wrappers = try interpreter.wrappers(table["wrappers"], at: path + ".wrappers")
    let runner = interpreter.runner
    let run = LuaEffect.run { send in await runner.run(body, wrappers: wrappers, send: send) }
    return try interpreter.held(run.named("run"), data: .nil, at: path)
  }
}
