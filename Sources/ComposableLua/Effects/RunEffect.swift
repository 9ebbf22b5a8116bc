import LuaKit

/// `effect.run(function(send) ... end)`: async work in a coroutine, which `LuaEffectRunner.run`
/// drives; the request kinds' host calls (`http.get`, `file.read`...) are answered there.
enum RunEffect: LuaEffectKind {
  static let name = "run"
  static let fields = ["fn", "wrappers"]

  /// What it is in Lua: its constructor in composable.effect, its LuaLS annotation and its
  /// row in docs/lua-api.md (scripts/generate-effect-kinds copies each there).
  static let lua = LuaEffectKindSource(
    constructor: """
      -- effect.run(function(send) ... end): async work in a coroutine. Inside it, send(action)
      -- feeds an action back, sleep(seconds) waits on the store's clock, and http.get(url) or
      -- http.request{...} returns the response; each of them yields to the host.
      local function send(action) yield({ op = "send", action = action }) end

      function effect.run(work)
        if type(work) ~= "function" then
          error("effect.run: expected a function, got " .. type(work), 2)
        end
        return { kind = "run", fn = function() return work(send) end }
      end

      function effect.sleep(seconds) yield({ op = "sleep", seconds = seconds }) end
      """,
    annotation: """
      ---Async work in a coroutine: `send(action)` feeds an action back; inside it `sleep`, `http`
      ---and `file` reach the host.
      ---@param work fun(send: fun(action: Action|string))
      ---@return Effect
      function effect.run(work) end

      ---Waits `seconds` on the store's clock (inside `effect.run`).
      ---@param seconds number
      function effect.sleep(seconds) end
      """,
    row:
      "| `effect.run(function(send) ... end)` | Async work in a coroutine; see below. |")

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
