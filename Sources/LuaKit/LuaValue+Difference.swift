/// One place where two Lua values differ: the path to it as Lua code writes it
/// (`todos[1].done`), and what is there before and after (nil where nothing is).
public struct LuaDifference: Hashable, Sendable {
  /// The path from the root, as Lua code writes it: `count`, `todos[1].done`, `["a key"]`. Empty
  /// when the roots themselves differ and are not both tables.
  public let path: String
  public let old: LuaValue
  public let new: LuaValue

  public init(path: String, old: LuaValue, new: LuaValue) {
    self.path = path
    self.old = old
    self.new = new
  }
}

extension LuaValue {
  /// Where `new` differs from `old`, leaf by leaf, in a stable order: keys as `sortedEntries`
  /// orders them; for two sequences, the common start and end are skipped so that one element
  /// inserted or removed is one difference, not a shift of every element after it. Linear in
  /// the size of the values (no edit-distance search), so a diff of a large state stays cheap.
  public static func differences(from old: LuaValue, to new: LuaValue) -> [LuaDifference] {
    var found: [LuaDifference] = []
    collect(old, new, path: "", depth: 0, into: &found)
    return found
  }

  private static func collect(
    _ old: LuaValue, _ new: LuaValue, path: String, depth: Int, into found: inout [LuaDifference]
  ) {
    // Two tables are walked, not first compared whole: a whole comparison at every level
    // would go over a large unchanged part once per level above it.
    guard case let .table(oldTable) = old, case let .table(newTable) = new,
      depth < maximumDepth
    else {
      if old != new { found.append(LuaDifference(path: path, old: old, new: new)) }
      return
    }
    if oldTable.isSequence, newTable.isSequence, !oldTable.isEmpty, !newTable.isEmpty {
      collectSequences(oldTable.sequence, newTable.sequence, path: path, depth: depth, into: &found)
      return
    }
    var keys = Array(oldTable.entries.keys)
    keys += newTable.entries.keys.filter { oldTable.entries[$0] == nil }
    keys.sort(by: keyOrder)
    for key in keys {
      collect(
        oldTable[key], newTable[key], path: path + pathComponent(key, atRoot: path.isEmpty),
        depth: depth + 1, into: &found)
    }
  }

  private static func collectSequences(
    _ old: [LuaValue], _ new: [LuaValue], path: String, depth: Int,
    into found: inout [LuaDifference]
  ) {
    let (start, oldEnd, newEnd) = changedMiddle(old, new)
    let paired = min(oldEnd, newEnd) - start
    // When one side only grew or shrank in the middle, its elements are added or removed where
    // they are; otherwise the middle is compared element by element.
    if oldEnd - start == 0 || newEnd - start == 0 {
      for index in start..<oldEnd {
        found.append(LuaDifference(path: path + "[\(index + 1)]", old: old[index], new: .nil))
      }
      for index in start..<newEnd {
        found.append(LuaDifference(path: path + "[\(index + 1)]", old: .nil, new: new[index]))
      }
      return
    }
    for index in start..<(start + paired) {
      collect(old[index], new[index], path: path + "[\(index + 1)]", depth: depth + 1, into: &found)
    }
    for index in (start + paired)..<oldEnd {
      found.append(LuaDifference(path: path + "[\(index + 1)]", old: old[index], new: .nil))
    }
    for index in (start + paired)..<newEnd {
      found.append(LuaDifference(path: path + "[\(index + 1)]", old: .nil, new: new[index]))
    }
  }

  /// Where two sequences differ: past their common start (`start`) and before their common
  /// end (`oldEnd` in `old`, `newEnd` in `new`). One element inserted or removed is a middle
  /// that is empty on one side.
  public static func changedMiddle(
    _ old: [LuaValue], _ new: [LuaValue]
  ) -> (start: Int, oldEnd: Int, newEnd: Int) {
    var start = 0
    while start < old.count, start < new.count, old[start] == new[start] { start += 1 }
    var oldEnd = old.count
    var newEnd = new.count
    while oldEnd > start, newEnd > start, old[oldEnd - 1] == new[newEnd - 1] {
      oldEnd -= 1
      newEnd -= 1
    }
    return (start, oldEnd, newEnd)
  }

  /// `.name` (or `name` first), `[1]`, `["a key"]`: how Lua code indexes with `key`.
  public static func pathComponent(_ key: LuaValue, atRoot: Bool) -> String {
    if case let .string(string) = key, let text = string.string, text.isLuaIdentifier {
      return atRoot ? text : "." + text
    }
    return "[\(key.description)]"
  }
}

extension LuaDifference {
  /// The difference as assignments a Lua reader knows: `− todos[1].done = false` then
  /// `+ todos[1].done = true`; a side that holds nothing has no line. Where the path is empty
  /// (the roots differ), `root` names the value, or the lines hold the values alone. With
  /// `colored`, the lines are red and green for a terminal. The minus is U+2212, as in
  /// custom-dump's diffs and the TestStore's legend `(Expected: −, Actual: +)`.
  public func lines(root: String? = nil, colored: Bool = false) -> [String] {
    let target = path.isEmpty ? root : path
    func line(_ value: LuaValue) -> String { target.map { "\($0) = \(value)" } ?? "\(value)" }
    var lines: [String] = []
    if old != .nil { lines.append(paint("\u{2212} " + line(old), colored ? "31" : nil)) }
    if new != .nil { lines.append(paint("+ " + line(new), colored ? "32" : nil)) }
    return lines
  }

  private func paint(_ line: String, _ colour: String?) -> String {
    guard let colour else { return line }
    return "\u{1B}[\(colour)m\(line)\u{1B}[0m"
  }
}
