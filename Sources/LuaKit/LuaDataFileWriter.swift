/// Writes the text of a `LuaDataFile`: `check` first (what cannot be saved, named by its path),
/// then the statements, which cannot fail.
///
/// Each table reached at more than one place is written once, as `shared[n] = ...`, after the
/// shared tables it holds, and is `shared[n]` wherever it appears: the text is linear in the
/// distinct tables, and a reader makes one table of it again. (A table of names rather than a
/// local each: Lua allows a function 200 locals.) A table nested `splitDepth` levels inside
/// one statement is written as a statement of its own too, referred to once: Lua's parser
/// takes fewer than 200 nested constructors in one expression, and a file must load in
/// `lua5.4` at every depth the limit allows.
struct LuaDataFileWriter {
  static let splitDepth = 100
  /// A table goes on one line when it holds no table with something in it and fits this.
  let inlineWidth = 80
  let sharing: Set<LuaTableIdentity>
  let maximumDepth: Int
  /// What json.null is written as (Lua source around the value can reach it, as a test file
  /// can: `json.null`); nil refuses it, as a saved file must (it reads literals only).
  let nullSource: String?
  /// The number of each shared table written so far.
  private var names: [LuaTableIdentity: Int] = [:]
  /// The height of each table checked (1: a table of scalars): a table met again is checked
  /// again only for where it is now.
  private var heights: [LuaTableIdentity: Int] = [:]
  private var output = ""
  /// The fields written so far, counted as `LuaDataFileReader` counts them when it reads them
  /// back (each entry, each `shared[n] = ...`, the `nil` of an empty list's `{ nil }`), so that
  /// a file with more than it takes is refused while writing, not set aside at the next read.
  private(set) var fieldsWritten = 0

  init(value: LuaValue, maximumDepth: Int, nullSource: String? = nil) {
    sharing = value.sharedTables
    self.maximumDepth = maximumDepth
    self.nullSource = nullSource
  }

  // MARK: Checking

  /// Refuses what a data file cannot hold: a function, a userdata or coroutine, a key that is
  /// a table, nil or NaN, tables nested more than `maximumDepth` deep on any path.
  mutating func check(_ value: LuaValue) throws(LuaError) {
    do throws(LuaError) {
      _ = try height(of: value, depth: 0)
    } catch {
      // Found in hash order, which differs from run to run: the problem named is the first in
      // the order the file is written, so that the same state always says the same place.
      heights = [:]
      inWrittenOrder = true
      defer { inWrittenOrder = false }
      _ = try height(of: value, depth: 0)
      throw error
    }
  }

  /// Whether `height(of:)` goes through each table in the order it is written (on a second
  /// pass, after a problem was found).
  private var inWrittenOrder = false

  /// The height of `value` (0 for a scalar) at `depth` (0 for the root), checked.
  private mutating func height(of value: LuaValue, depth: Int) throws(LuaError) -> Int {
    switch value {
    case .nil, .boolean, .integer, .number, .string: return 0
    case .function:
      throw .conversion(path: "", message: "a function cannot be saved: keep data only")
    case let .other(reference) where reference.isNull:
      if nullSource != nil { return 0 }
      // What JSON decoded into the state: said as what it is, with what to keep instead.
      throw .conversion(
        path: "",
        message: "json.null (JSON's null, as decoded) cannot be saved: a saved state holds data "
          + "only. To fix, keep nil where the JSON has null (`if value == json.null then value = "
          + "nil end`; `value ~= json.null and value or nil` would lose false too)")
    case let .other(reference):
      throw .conversion(
        path: "", message: "\(reference.description) cannot be saved: keep data only")
    case let .table(table):
      if let known = heights[table.identity] {
        guard depth + known <= maximumDepth else {
          throw .conversion(path: "", message: "nested more than \(maximumDepth) levels deep")
        }
        return known
      }
      guard depth < maximumDepth else {
        throw .conversion(path: "", message: "nested more than \(maximumDepth) levels deep")
      }
      var tallest = 0
      if inWrittenOrder {
        for (key, element) in table.sortedEntries {
          tallest = max(tallest, try height(ofEntry: key, element, depth: depth))
        }
      } else {
        for (key, element) in table.entries {
          tallest = max(tallest, try height(ofEntry: key, element, depth: depth))
        }
      }
      heights[table.identity] = tallest + 1
      return tallest + 1
    }
  }

  /// The height of a table's entry at `depth` (the table's), its key checked; a problem below
  /// is named under the key.
  private mutating func height(
    ofEntry key: LuaValue, _ element: LuaValue, depth: Int
  ) throws(LuaError) -> Int {
    try Self.checkKey(key)
    do throws(LuaError) {
      return try height(of: element, depth: depth + 1)
    } catch {
      throw error.under(LuaPath.component(key))
    }
  }

  private static func checkKey(_ key: LuaValue) throws(LuaError) {
    switch key {
    case .string, .boolean, .integer: return
    case let .number(number) where !number.isNaN: return
    case .number: throw .conversion(path: "", message: "a key that is NaN cannot be saved")
    default:
      throw .conversion(path: "", message: "a key that is \(key.typeName) cannot be saved")
    }
  }

  // MARK: Writing

  /// The data file's statements: the shared tables, then `return` and the value.
  mutating func statements(of value: LuaValue) -> String {
    if needsStatements(value) {
      output += "local shared = {}\n"
      defineShared(in: value)
    }
    output += "return "
    write(value, indent: 0)
    output += "\n"
    return output
  }

  /// Whether `value` (checked) is written with statements: it shares tables, or nests deeper
  /// than one statement holds.
  private func needsStatements(_ value: LuaValue) -> Bool {
    guard case let .table(table) = value else { return false }
    return !sharing.isEmpty || heights[table.identity, default: 0] >= Self.splitDepth
  }

  /// `statements(of:)` as one expression.
  mutating func expression(of value: LuaValue) -> String {
    guard needsStatements(value) else {
      write(value, indent: 0)
      return output
    }
    output += "(function()\n"
    output += "local shared = {}\n"
    defineShared(in: value)
    output += "return "
    write(value, indent: 0)
    output += "\nend)()"
    return output
  }

  /// Writes `shared[n] = ...` for each shared table `value` holds and that is not written yet,
  /// those it holds first, and for each table `splitDepth` levels inside the statement `value`
  /// starts (`nesting` levels in): what the value's own literal will refer to.
  private mutating func defineShared(in value: LuaValue, nesting: Int = 1) {
    guard case let .table(table) = value, table.holdsTables else { return }
    // In the order the table is written, so that the same value is always the same text.
    let elements = table.isSequence ? table.sequence : table.sortedEntries.map(\.value)
    for element in elements {
      guard case let .table(inner) = element else { continue }
      if sharing.contains(inner.identity) || nesting + 1 >= Self.splitDepth {
        if names[inner.identity] == nil { define(inner) }
      } else {
        defineShared(in: element, nesting: nesting + 1)
      }
    }
  }

  private mutating func define(_ table: LuaTable) {
    defineShared(in: .table(table))
    let number = names.count + 1
    fieldsWritten += 1
    output += "shared[\(number)] = "
    write(table, indent: 0, asDefinition: true)
    output += "\n"
    names[table.identity] = number
  }

  private mutating func write(_ value: LuaValue, indent: Int) {
    switch value {
    case let .table(table): write(table, indent: indent, asDefinition: false)
    default: output += scalarSource(value)
    }
  }

  private mutating func write(_ table: LuaTable, indent: Int, asDefinition: Bool) {
    if !asDefinition, let number = names[table.identity] {
      output += "shared[\(number)]"
      return
    }
    if table.isEmpty {
      output += Self.empty(table)
      if table.kind == .array { fieldsWritten += 1 }
      return
    }
    fieldsWritten += table.count
    // Each entry: its key as written (none in a sequence), the value.
    let entries: [(source: String?, value: LuaValue)] =
      table.isSequence
      ? table.sequence.map { (nil, $0) }
      : table.sortedEntries.map { (Self.source(of: $0.key), $0.value) }
    if let inline = inline(entries), indent + inline.count <= inlineWidth {
      output += inline
      // The `nil` of each empty list written in it (`{ nil }`) is a field too.
      for entry in entries {
        if case let .table(inner) = entry.value, names[inner.identity] == nil, inner.isEmpty,
          inner.kind == .array
        {
          fieldsWritten += 1
        }
      }
      return
    }
    let padding = String(repeating: " ", count: indent + 2)
    output += "{\n"
    for entry in entries {
      output += padding
      if let source = entry.source { output += "\(source) = " }
      write(entry.value, indent: indent + 2)
      output += ",\n"
    }
    output += String(repeating: " ", count: indent) + "}"
  }

  /// An empty table as written: `{ nil }` for an empty list (an array: `json.array()`, a Swift
  /// `[]`), which Lua reads as an empty table and the reader as an empty list; `{}` otherwise.
  private static func empty(_ table: LuaTable) -> String {
    table.kind == .array ? "{ nil }" : "{}"
  }

  /// `{ a = 1, b = "x" }` when every value is a scalar, an empty table or a shared table's
  /// name; nil otherwise.
  private func inline(_ entries: [(source: String?, value: LuaValue)]) -> String? {
    var parts: [String] = []
    for entry in entries {
      let value: String
      switch entry.value {
      case let .table(table):
        if let number = names[table.identity] {
          value = "shared[\(number)]"
        } else if table.isEmpty {
          value = Self.empty(table)
        } else {
          return nil
        }
      default: value = scalarSource(entry.value)
      }
      parts.append(entry.source.map { "\($0) = \(value)" } ?? value)
    }
    return "{ " + parts.joined(separator: ", ") + " }"
  }

  /// How a key is written: `name`, or `[1]`, `["not a name"]`, `[true]` (checked already).
  private static func source(of key: LuaValue) -> String {
    if case let .string(string) = key, let text = string.string, text.isLuaIdentifier {
      return text
    }
    return "[\(scalar(key))]"
  }

  /// A scalar as the data file writes it.
  /// `scalar(value)`, json.null as `nullSource`.
  private func scalarSource(_ value: LuaValue) -> String {
    if case let .other(reference) = value, reference.isNull, let nullSource { return nullSource }
    return Self.scalar(value)
  }

  static func scalar(_ value: LuaValue) -> String {
    switch value {
    case .nil: "nil"
    case let .boolean(flag): flag ? "true" : "false"
    case let .integer(integer): LuaDataFile.literal(integer: integer)
    case let .number(float): LuaDataFile.literal(float: float)
    case let .string(string): LuaValue.quote(string)
    case .table, .function, .other: "nil"  // refused by `check`
    }
  }
}
