import ComposableLua
import LuaKit

/// The feature the attack suites (ViewsAttackTests, FlatReadsAttackTests, ...) break things
/// with: each action carries Lua code, `action.code`, run against the state, with `K` a module
/// local kept across actions so that code can keep what one action handed out for the next.
public enum AttackFeature {
  /// No limit on memory, instructions or time: an attack that runs long is not what it tests.
  public static let unlimited = LuaLimits(memory: nil, instructions: nil, seconds: nil)

  /// The source of an attack feature: `K`, then `globals` (what the code may use besides the
  /// state), then `F` with `fields` (say `F.migrate`), `F.initial_state` whose body is
  /// `initialState`, and `F.reduce`, which runs `reduce` (actions other than code, that
  /// return) before the code.
  public static func source(
    globals: String = "", fields: String = "", initialState: String, reduce: String = ""
  ) -> String {
    """
    K = {}
    \(globals)
    local F = {}
    \(fields)
    function F.initial_state()
    \(initialState)
    end
    function F.reduce(state, action)
    \(reduce)
      local env = setmetatable({ state = state, K = K, action = action }, { __index = _ENV })
      local f = assert(load(action.code, "=attack", "t", env))
      return f()
    end
    return F
    """
  }

  /// The feature of `source`, as file `attack.lua`, its prints dropped.
  public static func make(_ source: String, limits: LuaLimits = unlimited) throws -> LuaFeature {
    try LuaFeature(source: LuaString(source), file: "attack.lua", limits: limits, print: { _ in })
  }
}
