/// What a walk for differences reads: two `LuaValue` snapshots, or a state's tables in Lua as
/// they were before the open transaction and are now (`LuaVM.transactionDifferences`). One walk
/// serves both, so that a change reads the same whichever way it was found.
protocol LuaDifferenceSource {
  associatedtype Node
  associatedtype Failure: Error
  /// What tells one table node from another: a walk meets each pair of tables once.
  associatedtype TableKey: Hashable
  /// The node for nil: what a table holds under a key it does not have.
  var nothing: Node { get }
  func isTable(_ node: Node) -> Bool
  /// The table a node is (nil for a node that is not a table).
  func tableKey(_ node: Node) -> TableKey?
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
  /// For a pair that is one table before and now, whose own fields did not change: the fields
  /// that hold a table that did (every other field holds the same on both sides), so that the
  /// walk reads those alone. Nil when the source cannot tell: the walk reads both whole.
  func changedFields(_ old: Node, _ new: Node) throws(Failure) -> LuaChangedFields<Node>?
}

extension LuaDifferenceSource {
  func changedFields(_ old: Node, _ new: Node) -> LuaChangedFields<Node>? { nil }
}

/// The fields of a table that hold a table that changed, when they are all that differs in it:
/// what `LuaDifferenceSource.changedFields` gives.
struct LuaChangedFields<Node> {
  /// The table's length when its keys are 1 to n (what `LuaDifferenceTable.isSequence` says of
  /// it), nil when they are not.
  var sequenceLength: Int?
  var fields: [(key: LuaValue, old: Node, new: Node)]
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
///
/// Each pair of tables (old, new) is walked once, wherever it is met: a table reached at many
/// places (2^40 paths to 41 tables) costs its tables, and the places after the first are
/// differences `sameAs` the first, when it changed. Each pair is compared whole at most once.
struct LuaDifferenceWalk<Source: LuaDifferenceSource> {
  let source: Source
  var found: [LuaDifference] = []

  private struct Pair: Hashable {
    let old: Source.TableKey
    let new: Source.TableKey
  }

  /// Each pair walked: where first, and whether it changed (nil while it is walked: a pair met
  /// inside itself, in a state that holds a cycle, is left to the walk already on it).
  private var walked: [Pair: (path: String, changed: Bool?)] = [:]
  /// Each pair compared whole, and the answer.
  private var compared: [Pair: Bool] = [:]

  init(source: Source) { self.source = source }

  mutating func collect(
    _ old: Source.Node, _ new: Source.Node, path: String, depth: Int
  ) throws(Source.Failure) {
    if source.isUnchanged(old, new) { return }
    // Two tables are walked, not first compared whole: a whole comparison at every level
    // would go over a large unchanged part once per level above it.
    guard let oldKey = source.tableKey(old), let newKey = source.tableKey(new),
      depth < LuaValue.maximumDepth
    else {
      if try !isEqual(old, new) { try report(path, old, new) }
      return
    }
    let pair = Pair(old: oldKey, new: newKey)
    if let first = walked[pair] {
      if first.changed == true { found.append(LuaDifference(path: path, sameAs: first.path)) }
      return
    }
    walked[pair] = (path, nil)
    let before = found.count
    try collectTables(old, new, path: path, depth: depth)
    walked[pair] = (path, found.count > before)
  }

  private mutating func collectTables(
    _ old: Source.Node, _ new: Source.Node, path: String, depth: Int
  ) throws(Source.Failure) {
    if let changed = try source.changedFields(old, new),
      try collectChangedFields(changed, path: path, depth: depth)
    {
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
    if try isReordering(old[start..<oldEnd], new[start..<newEnd]) {
      // The same elements in another order (a sort): each place that holds another element
      // shows the element, whole, not its fields one by one against the one that left.
      for index in start..<oldEnd where try !isEqual(old[index], new[index]) {
        try report(path + "[\(index + 1)]", old[index], new[index])
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

  /// What the walk of both tables whole finds, from the fields that hold a changed table alone
  /// (in a large list whose one element changed inside, that element), in the same order; false,
  /// having found nothing, where that walk would look for a reordering, which compares every
  /// element of the changed middle.
  private mutating func collectChangedFields(
    _ changed: LuaChangedFields<Source.Node>, path: String, depth: Int
  ) throws(Source.Failure) -> Bool {
    guard changed.sequenceLength != nil else {
      // Each key in order, as the whole walk goes; the other fields hold what they held.
      for field in changed.fields.sorted(by: { LuaValue.keyOrder($0.key, $1.key) }) {
        try collect(
          field.old, field.new,
          path: path + LuaValue.pathComponent(field.key, atRoot: path.isEmpty), depth: depth + 1)
      }
      return true
    }
    // As `collectSequences`: every other element is one value on both sides, so the changed
    // middle runs from the first of these that differs to the last, at the same places.
    var elements: [(index: Int, old: Source.Node, new: Source.Node)] = []
    for field in changed.fields {
      guard case let .integer(position) = field.key else { return false }
      elements.append((position - 1, field.old, field.new))
    }
    elements.sort { $0.index < $1.index }
    var first: Int?
    for element in elements where try !isEqual(element.old, element.new) {
      first = element.index
      break
    }
    guard let start = first else { return true }
    var last = start
    for element in elements.reversed() where element.index > start {
      if try !isEqual(element.old, element.new) {
        last = element.index
        break
      }
    }
    if last > start, last + 1 - start <= Self.reorderingLimit { return false }
    for element in elements where element.index >= start && element.index <= last {
      try collect(
        element.old, element.new, path: path + "[\(element.index + 1)]", depth: depth + 1)
    }
    return true
  }

  mutating func changedMiddle(
    _ old: [Source.Node], _ new: [Source.Node]
  ) throws(Source.Failure) -> (start: Int, oldEnd: Int, newEnd: Int) {
    var start = 0
    while start < old.count, start < new.count, try isEqual(old[start], new[start]) {
      start += 1
    }
    var oldEnd = old.count
    var newEnd = new.count
    while oldEnd > start, newEnd > start, try isEqual(old[oldEnd - 1], new[newEnd - 1]) {
      oldEnd -= 1
      newEnd -= 1
    }
    return (start, oldEnd, newEnd)
  }

  /// The longest middle looked at for a reordering: matching is quadratic in it.
  static var reorderingLimit: Int { 256 }

  /// Whether `new` holds the elements of `old` (equal ones, each matched once), in another
  /// order; middles longer than `reorderingLimit` are not looked at.
  private mutating func isReordering(
    _ old: ArraySlice<Source.Node>, _ new: ArraySlice<Source.Node>
  ) throws(Source.Failure) -> Bool {
    guard old.count == new.count, old.count > 1, old.count <= Self.reorderingLimit else {
      return false
    }
    var unmatched = Array(old)
    for element in new {
      var found: Int?
      for (index, candidate) in unmatched.enumerated() where try isEqual(candidate, element) {
        found = index
        break
      }
      guard let found else { return false }
      unmatched.swapAt(found, unmatched.count - 1)
      unmatched.removeLast()
    }
    return true
  }

  /// `source.isEqual`, once per pair of tables.
  private mutating func isEqual(
    _ old: Source.Node, _ new: Source.Node
  ) throws(Source.Failure)
    -> Bool
  {
    guard let oldKey = source.tableKey(old), let newKey = source.tableKey(new) else {
      return try source.isEqual(old, new)
    }
    if source.isUnchanged(old, new) { return true }  // no look-up kept for each element of a list
    let pair = Pair(old: oldKey, new: newKey)
    if let known = compared[pair] { return known }
    let answer = try source.isEqual(old, new)
    compared[pair] = answer
    return answer
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

  func tableKey(_ node: LuaValue) -> LuaTableIdentity? {
    if case let .table(table) = node { table.identity } else { nil }
  }

  func table(_ node: LuaValue) -> LuaDifferenceTable<LuaValue> {
    guard case let .table(table) = node else {
      return LuaDifferenceTable(entries: [:], isArray: false)
    }
    return LuaDifferenceTable(entries: table.entries, isArray: table.kind == .array)
  }

  /// One table: the same value, wherever it is.
  func isUnchanged(_ old: LuaValue, _ new: LuaValue) -> Bool {
    guard case let .table(a) = old, case let .table(b) = new else { return false }
    return a.identity == b.identity
  }
  func isEqual(_ old: LuaValue, _ new: LuaValue) -> Bool { old == new }
  func value(_ node: LuaValue) -> LuaValue { node }
  func failure(_ error: Never, at path: String) -> Never {}
}
