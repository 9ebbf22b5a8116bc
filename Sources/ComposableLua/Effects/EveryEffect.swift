import LuaKit

/// `effect.every(seconds, action)`: sends `action` every `seconds` until cancelled.
enum EveryEffect: LuaEffectKind {
  static let name = "every"
  static let fields = ["seconds", "action", "wrappers"]

  /// What it is in Lua: its constructor in composable.effect, its LuaLS annotation and its
  /// row in docs/lua-api.md (scripts/generate-effect-kinds copies each there).
  static let lua = LuaEffectKindSource(
    constructor: """
      function effect.every(seconds, action)
        return { kind = "every", seconds = seconds, action = action }
      end
      """,
    annotation: """
      ---Sends `action` every `seconds` until cancelled.
      ---@param seconds number
      ---@param action Action|string
      ---@return Effect
      function effect.every(seconds, action) end
      """,
    row:
      "| `effect.every(seconds, action)` | Sends `action` every `seconds` (more than 0) until cancelled. |"
  )

  static func effect(
    from table: LuaTable, at path: String, in interpreter: LuaEffectInterpreter
  ) throws(LuaFeatureError) -> LuaEffect {
    // What is held is the action as sent, made by the wrappers (as `after`'s).
    let action = try interpreter.wrappedAction(table, at: path, effect: "effect.every")
    let interval = try interpreter.duration(table["seconds"], at: path + ".seconds")
    // Durations count whole nanoseconds: 1e-300 is 0 to a clock, and 5e-10 one nanosecond;
    // what is under one is refused as it was given.
    guard interval > .zero, (table["seconds"].doubleValue ?? 0) >= 1e-9 else {
      let given = table["seconds"].description(limit: 40)
      throw interpreter.fail(
        path + ".seconds",
        "expected at least a nanosecond (1e-9 seconds) between ticks, got \(given)")
    }
    return try interpreter.held(
      .timer(every: interval, clock: interpreter.clock, send: action).named("every"),
      data: action, at: path)
  }
}
