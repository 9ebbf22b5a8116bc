import LuaKit

/// Lua statements that turn one value into another, as a person writes a TestStore's expected
/// change: `s.todos[1].done = true`, `table.insert(s.todos, 1, { ... })`,
/// `table.remove(s.todos, 3)`. A sequence keeps being a sequence: an element inserted or
/// removed in the middle is a `table.insert` or `table.remove`, never a hole.
enum LuaAssignments {
  /// The statements that make `old` into `new`, where `target` names `old` (`s`).
  ///
  /// The root itself is never assigned (`s = { ... }` would only rebind the test's local): a
  /// root that changed whole is cleared and filled field by field. A pair of tables met again
  /// at another place is one table at both: the second place is assigned the first
  /// (`s.b = s.a`), so a value shared 2^40 ways is written in its distinct tables.
  static func statements(
    from old: LuaValue, to new: LuaValue, target: String
  ) throws(LuaError)
    -> [String]
  {
    var writer = Writer()
    try writer.collect(old, new, target, isRoot: true)
    return writer.statements
  }

  private struct Writer {
    var statements: [String] = []
    /// Where each pair of tables (old, new) was made new first.
    var places: [LuaTablePair: String] = [:]

    mutating func collect(
      _ old: LuaValue, _ new: LuaValue, _ target: String, isRoot: Bool = false
    ) throws(LuaError) {
      guard old != new else { return }
      guard case let .table(oldTable) = old, case let .table(newTable) = new else {
        statements.append("\(target) = \(try literal(new, indent: 0))")
        return
      }
      let pair = LuaTablePair(old: oldTable.identity, new: newTable.identity)
      if let first = places[pair] {
        statements.append("\(target) = \(first)")
        return
      }
      places[pair] = target
      if !isRoot, oldTable.isSequence, newTable.isSequence, !oldTable.isEmpty, !newTable.isEmpty {
        try collectSequences(oldTable.sequence, newTable.sequence, target)
        return
      }
      if !isRoot, oldTable.isReplaced(by: newTable) {
        statements.append("\(target) = \(try literal(new, indent: 0))")
        return
      }
      for key in oldTable.keysToCompare(with: newTable) {
        try collect(
          oldTable[key], newTable[key], target + LuaValue.pathComponent(key, atRoot: false))
      }
    }

    private mutating func collectSequences(
      _ old: [LuaValue], _ new: [LuaValue], _ target: String
    ) throws(LuaError) {
      let (start, oldEnd, newEnd) = LuaValue.changedMiddle(old, new)
      // Where only one side has elements in the middle, they were inserted or removed there;
      // otherwise the middle is changed element by element, and what is left over on one side
      // is inserted or removed after it.
      let paired =
        oldEnd - start == 0 || newEnd - start == 0 ? 0 : min(oldEnd, newEnd) - start
      for index in start..<(start + paired) {
        try collect(old[index], new[index], "\(target)[\(index + 1)]")
      }
      // Removed from the back first, so that each index still names the element it did.
      for index in ((start + paired)..<oldEnd).reversed() {
        statements.append("table.remove(\(target), \(index + 1))")
      }
      for index in (start + paired)..<newEnd {
        statements.append(
          "table.insert(\(target), \(index + 1), \(try literal(new[index], indent: 0)))")
      }
    }
  }

  /// `value` as Lua source that reads back as exactly it (`LuaDataFile`'s literals; a value
  /// that shares tables as the expression that makes them shared), its lines after the first
  /// indented by `indent` spaces.
  /// json.null as `json.null`: the test file names `json` when it holds one (`LuaTestWriter`).
  static func literal(_ value: LuaValue, indent: Int) throws(LuaError) -> String {
    try LuaDataFile.expression(of: value, indent: indent, null: "json.null")
  }
}
