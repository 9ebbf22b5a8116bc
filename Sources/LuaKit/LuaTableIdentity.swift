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
/// Identities are drawn from one counter for the process (63 bits: they do not run out). The
/// top bit says the table is known to be a tree (`isTree`): no table below it is reached
/// twice, so a walk that needs to know what is shared need not look (a snapshot knows it as it
/// reads; a table built or changed in Swift is a tree only when it holds no table).
public struct LuaTableIdentity: Hashable, Sendable {
  let rawValue: UInt64

  private static let counter = Atomic<UInt64>(0)
  private static let treeBit: UInt64 = 1 << 63

  static func fresh(isTree: Bool = false) -> LuaTableIdentity {
    let number = counter.wrappingAdd(1, ordering: .relaxed).newValue
    return LuaTableIdentity(rawValue: number | (isTree ? treeBit : 0))
  }

  /// Whether no table below this one is reached twice (false when not known).
  var isTree: Bool { rawValue & Self.treeBit != 0 }

  /// The Lua table this was read from had a metatable, which the snapshot dropped (see
  /// `LuaTable.hadMetatable`): kept by every identity the table gets as it changes.
  private static let metatableBit: UInt64 = 1 << 62

  var hadMetatable: Bool { rawValue & Self.metatableBit != 0 }

  /// A new identity for the changed table, keeping what this one says of its origin.
  func renewed(isTree: Bool) -> LuaTableIdentity {
    let fresh = Self.fresh(isTree: isTree)
    return LuaTableIdentity(rawValue: fresh.rawValue | (rawValue & Self.metatableBit))
  }

  /// This identity, saying whether the table's Lua original had a metatable.
  func marked(hadMetatable: Bool) -> LuaTableIdentity {
    LuaTableIdentity(
      rawValue: hadMetatable ? rawValue | Self.metatableBit : rawValue & ~Self.metatableBit)
  }
}
