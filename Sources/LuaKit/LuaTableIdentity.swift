import Synchronization

/// Which table a `LuaTable` is, as Lua's own tables have an identity that their contents do not
/// give.
///
/// A snapshot reads each Lua table once, so a table reached at two places of a value is one
/// identity at both (`state.a` and `state.b` after `state.a = t; state.b = t`), and every walk
/// over values keys its work by identity: a table reached twice is printed once and then
/// referred to, compared, diffed and saved once, and pushed back into Lua as one table, so the
/// sharing survives a round trip. A copy of a `LuaTable` keeps its identity; any change makes a
/// new one, because the changed value is no longer that table. A table built in Swift gets a
/// new identity too, and placed at two places of a value it is one table at both when pushed.
///
/// Identities are drawn from one counter for the process (64 bits: they do not run out).
public struct LuaTableIdentity: Hashable, Sendable {
  let rawValue: UInt64

  private static let counter = Atomic<UInt64>(0)

  static func fresh() -> LuaTableIdentity {
    LuaTableIdentity(rawValue: counter.wrappingAdd(1, ordering: .relaxed).newValue)
  }
}
