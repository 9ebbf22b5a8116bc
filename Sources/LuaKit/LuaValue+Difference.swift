/// One place where two Lua values differ: the path to it as Lua code writes it
/// (`todos[1].done`), and what is there before and after (nil where nothing is).
public struct LuaDifference: Hashable, Sendable {
  /// The path from the root, as Lua code writes it: `count`, `todos[1].done`, `["a key"]`. Empty
  /// when the roots themselves differ and are not both tables.
  public let path: String
  /// What `path` held before: `.nil` where it held nothing, and for a difference `sameAs`
  /// another.
  public let old: LuaValue
  /// What `path` holds after: `.nil` where it holds nothing, and for a difference `sameAs`
  /// another.
  public let new: LuaValue
  /// For a table reached at several places: the place its changes were listed at first. `path`
  /// holds the same table as `sameAs` before and after (one table at both), so what changed
  /// there changed here too; `old` and `new` are nil. Nil for a change of its own.
  public let sameAs: String?

  /// A change at `path` from `old` to `new`.
  ///
  /// ```swift
  /// let done = LuaDifference(path: "todos[1].done", old: false, new: true)
  /// done.lines()  // ["− todos[1].done = false", "+ todos[1].done = true"]
  /// ```
  public init(path: String, old: LuaValue, new: LuaValue) {
    self.path = path
    self.old = old
    self.new = new
    self.sameAs = nil
  }

  /// `path` changed as `sameAs` did: one table at both places.
  ///
  /// ```swift
  /// let shared = LuaDifference(path: "todos[2]", sameAs: "todos[1]")
  /// ```
  public init(path: String, sameAs: String) {
    self.path = path
    self.old = .nil
    self.new = .nil
    self.sameAs = sameAs
  }
}

extension LuaValue {
  /// Where `new` differs from `old`, leaf by leaf, in a stable order: keys as `sortedEntries`
  /// orders them; for two sequences, the common start and end are skipped so that one element
  /// inserted or removed is one difference, not a shift of every element after it. Linear in
  /// the size of the values (no edit-distance search), so a diff of a large state stays cheap.
  /// A pair of tables (old, new) met again at another place is not walked again: its changes
  /// are listed once, and the other place is a difference `sameAs` the first.
  public static func differences(from old: LuaValue, to new: LuaValue) -> [LuaDifference] {
    var walk = LuaDifferenceWalk(source: LuaValueDifferenceSource())
    walk.collect(old, new, path: "", depth: 0)
    return walk.found
  }

  /// Where two sequences differ: past their common start (`start`) and before their common
  /// end (`oldEnd` in `old`, `newEnd` in `new`). One element inserted or removed is a middle
  /// that is empty on one side.
  public static func changedMiddle(
    _ old: [LuaValue], _ new: [LuaValue]
  ) -> (start: Int, oldEnd: Int, newEnd: Int) {
    var walk = LuaDifferenceWalk(source: LuaValueDifferenceSource())
    return walk.changedMiddle(old, new)
  }

  /// `.name` (or `name` first), `[1]`, `["a key"]`: how Lua code indexes with `key`.
  public static func pathComponent(_ key: LuaValue, atRoot: Bool) -> String {
    if case let .string(string) = key, let text = string.string, text.isLuaIdentifier {
      return atRoot ? text : "." + text
    }
    return "[\(key.description(limit: .max))]"  // whole: a test writer makes Lua of it
  }
}

extension LuaDifference {
  /// The difference as assignments a Lua reader knows: `− todos[1].done = false` then
  /// `+ todos[1].done = true`; a side that holds nothing has no line. Where the path is empty
  /// (the roots differ), `root` names the value, or the lines hold the values alone. With
  /// `colored`, the lines are red and green for a terminal. The minus is U+2212, as in
  /// custom-dump's diffs and the TestStore's legend `(Expected: −, Actual: +)`.
  ///
  /// A difference `sameAs` another is one line: `= todos[2]: the same table as todos[1]`. Each
  /// line is at most `LuaValue.descriptionLimit` bytes.
  public func lines(root: String? = nil, colored: Bool = false) -> [String] {
    let target = path.isEmpty ? root : path
    if let sameAs {
      let line = LuaText.capped("= \(target ?? ""): the same table as \(sameAs)")
      return [paint(line, colored ? "33" : nil)]
    }
    func line(_ value: LuaValue) -> String {
      var text = LuaText(limit: LuaValue.descriptionLimit)
      if let target { text.append("\(target) = ") }
      var printer = LuaValuePrinter(sharing: value.sharedTables)
      printer.write(value, depth: 0, to: &text)
      return text.string
    }
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
