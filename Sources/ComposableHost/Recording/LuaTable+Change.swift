import LuaKit

/// How the writers of a change (`LuaAssignments`, `SwiftLiteral`) walk one table into another.
extension LuaTable {
  /// Whether `new` keeps none of this table's entries: the table was replaced (an element that
  /// moved, say), and one assignment of the whole reads better than one per field.
  func isReplaced(by new: LuaTable) -> Bool {
    !isEmpty && !entries.contains(where: { new[$0.key] == $0.value })
  }

  /// The keys to compare with `new`, in a stable order: this table's, then those only `new`
  /// has.
  func keysToCompare(with new: LuaTable) -> [LuaValue] {
    sortedEntries.map(\.key) + new.sortedEntries.map(\.key).filter { self[$0] == .nil }
  }
}

/// A table before and a table after, by identity: what the writers of a change meet once.
struct LuaTablePair: Hashable {
  let old: LuaTableIdentity
  let new: LuaTableIdentity
}
