import Composable
import LuaKit

/// An effect of a Lua feature: its actions are Lua values.
typealias LuaEffect = Effect<LuaValue>

/// The kinds of effect `composable.effect` makes (the `kind` of its tables).
enum LuaEffectKind: String, CaseIterable {
  case none, send, merge, concat, after, every, cancellable, cancel, debounce, throttle, run,
    http, file
}
