/// What a walk for differences reads: two `LuaValue` snapshots, or a state's tables in Lua as
/// they were before the open transaction and are now (`LuaVM.transactionDifferences`). One walk
/// serves both, so that a change reads the same whichever way it was found.
protocol LuaDifferenceSource {
  associatedtype Node
  associatedtype Failure: Error
  /// The node for nil: what a table holds under a key it does not have.
  var nothing: Node { get }
  func isTable(_ node: Node) -> Bool
  /// The entries of a node that `isTable`.
  func table(_ node: Node) throws(Failure) -> LuaDifferenceTable<Node>
  /// Whether the two are known to hold the same without a look inside (one table, unchanged):
  /// the walk skips them.
  func isUnchanged(_ old: Node, _ new: Node) -> Bool
  /// Whether the two hold the same, all the way down.
  func isEqual(_ old: Node, _ new: Node) throws(Failure) -> Bool
  /// The node as a value, for a difference that shows it.
  func value(_ node: Node) throws(Failure) -> LuaValue
  /// `error`, from reading the value at `path` (`todos[3]`), saying where it is.
  func failure(_ error: Failure, at path: String) -> Failure
}

/// A table's entries as a walk for differences reads them: the sequence (the values at 1, 2,
/// ... up to the first key missing) apart from the rest, so that a large array is read and
/// compared without hashing its keys.
struct LuaDifferenceTable<Node> {
  var sequence: [Node]
  var others: [LuaValue: Node]
  /// Whether the table is an array (what an empty one is known by).
  var isArray: Bool

  init(sequence: [Node], others: [LuaValue: Node], isArray: Bool) {
    self.sequence = sequence
    self.others = others
    self.isArray = isArray
  }

  init(entries: [LuaValue: Node], isArray: Bool) {
    var sequence: [Node] = []
    while let value = entries[.integer(sequence.count + 1)] { sequence.append(value) }
    let others =
      sequence.count == entries.count
      ? [:]
      : entries.filter { key, _ in
        guard case let .integer(index) = key else { return true }
        return index < 1 || index > sequence.count
      }
    self.init(sequence: sequence, others: others, isArray: isArray)
  }

  var isEmpty: Bool { sequence.isEmpty && others.isEmpty }
  var count: Int { sequence.count + others.count }

  /// As `LuaTable.isSequence`: the keys are exactly 1...count, or the table is an empty array.
  var isSequence: Bool { isEmpty ? isArray : others.isEmpty }

  var keys: [LuaValue] { (0..<sequence.count).map { .integer($0 + 1) } + others.keys }

  subscript(key: LuaValue) -> Node? {
    if case let .integer(index) = key, index >= 1, index <= sequence.count {
      return sequence[index - 1]
    }
    return others[key]
  }
}

/// The walk of `LuaValue.differences`, over any source.
struct LuaDifferenceWalk<Source: LuaDifferenceSource> {
  let source: Source
  var found: [LuaDifference] = []

  init(source: Source) { self.source = source }

  mutating func collect(
    _ old: Source.Node, _ new: Source.Node, path: String, depth: Int
  ) throws(Source.Failure) {
    if source.isUnchanged(old, new) { return }
    // Two tables are walked, not first compared whole: a whole comparison at every level
    // would go over a large unchanged part once per level above it.
    guard source.isTable(old), source.isTable(new), depth < LuaValue.maximumDepth else {
      if try !source.isEqual(old, new) { try report(path, old, new) }
      return
    }
    let oldTable = try source.table(old)
    let newTable = try source.table(new)
    if oldTable.isSequence, newTable.isSequence, !oldTable.isEmpty, !newTable.isEmpty {
      try collectSequences(oldTable.sequence, newTable.sequence, path: path, depth: depth)
      return
    }
    var keys = oldTable.keys
    keys += newTable.keys.filter { oldTable[$0] == nil }
    keys.sort(by: LuaValue.keyOrder)
    for key in keys {
      try collect(
        oldTable[key] ?? source.nothing, newTable[key] ?? source.nothing,
        path: path + LuaValue.pathComponent(key, atRoot: path.isEmpty), depth: depth + 1)
    }
  }

  private mutating func collectSequences(
    _ old: [Source.Node], _ new: [Source.Node], path: String, depth: Int
  ) throws(Source.Failure) {
    let (start, oldEnd, newEnd) = try changedMiddle(old, new)
    let paired = min(oldEnd, newEnd) - start
    // When one side only grew or shrank in the middle, its elements are added or removed where
    // they are; otherwise the middle is compared element by element.
    if oldEnd - start == 0 || newEnd - start == 0 {
      for index in start..<oldEnd {
        try report(path + "[\(index + 1)]", old[index], source.nothing)
      }
      for index in start..<newEnd {
        try report(path + "[\(index + 1)]", source.nothing, new[index])
      }
      return
    }
    for index in start..<(start + paired) {
      try collect(old[index], new[index], path: path + "[\(index + 1)]", depth: depth + 1)
    }
    for index in (start + paired)..<oldEnd {
      try report(path + "[\(index + 1)]", old[index], source.nothing)
    }
    for index in (start + paired)..<newEnd {
      try report(path + "[\(index + 1)]", source.nothing, new[index])
    }
  }

  func changedMiddle(
    _ old: [Source.Node], _ new: [Source.Node]
  ) throws(Source.Failure) -> (start: Int, oldEnd: Int, newEnd: Int) {
    var start = 0
    while start < old.count, start < new.count, try source.isEqual(old[start], new[start]) {
      start += 1
    }
    var oldEnd = old.count
    var newEnd = new.count
    while oldEnd > start, newEnd > start, try source.isEqual(old[oldEnd - 1], new[newEnd - 1]) {
      oldEnd -= 1
      newEnd -= 1
    }
    return (start, oldEnd, newEnd)
  }

  private mutating func report(
    _ path: String, _ old: Source.Node, _ new: Source.Node
  ) throws(Source.Failure) {
    do throws(Source.Failure) {
      found.append(
        LuaDifference(path: path, old: try source.value(old), new: try source.value(new)))
    } catch {
      throw source.failure(error, at: path)
    }
  }
}

/// Two `LuaValue` snapshots.
struct LuaValueDifferenceSource: LuaDifferenceSource {
  var nothing: LuaValue { .nil }

  func isTable(_ node: LuaValue) -> Bool {
    if case .table = node { true } else { false }
  }

  func table(_ node: LuaValue) -> LuaDifferenceTable<LuaValue> {
    guard case let .table(table) = node else {
      return LuaDifferenceTable(entries: [:], isArray: false)
    }
    return LuaDifferenceTable(entries: table.entries, isArray: table.kind == .array)
  }

  func isUnchanged(_ old: LuaValue, _ new: LuaValue) -> Bool { false }
  func isEqual(_ old: LuaValue, _ new: LuaValue) -> Bool { old == new }
  func value(_ node: LuaValue) -> LuaValue { node }
  func failure(_ error: Never, at path: String) -> Never {}
}
