extension LuaValue: CustomStringConvertible {
  /// How many bytes `description` writes at most: past it the text is cut and ends
  /// `… N more bytes`. Every message that quotes a value quotes its description, so no message
  /// grows with the value (an action of 20 MB is named in 2 KB).
  public static let descriptionLimit = 2_048

  /// How many bytes `pretty()` writes at most (a whole state, shown on request).
  public static let prettyLimit = 65_536

  /// The value as a Lua literal on one line, for a person: `{ count = 1, tags = { "a", "b" } }`,
  /// at most `descriptionLimit` bytes.
  ///
  /// A table reached at two places is written once, after a label, and then as its label, as
  /// inspect.lua writes it: `{ a = <1>{ "leaf" }, b = <1> }`. (A tree reads as Lua; a label is
  /// not Lua: data files write shared tables their own way, see `LuaDataFile`.)
  public var description: String { description(limit: Self.descriptionLimit) }

  /// `description`, cut at `limit` bytes instead.
  public func description(limit: Int) -> String {
    var text = LuaText(limit: limit)
    var printer = LuaValuePrinter(sharing: sharedTables)
    printer.write(self, depth: 0, to: &text)
    return text.string
  }

  /// The value as a Lua literal laid out for a person: on one line when it fits in `width`,
  /// otherwise a table per line of its fields, indented by two spaces a level; at most `limit`
  /// bytes, labelled as `description` labels a table reached twice.
  public func pretty(width: Int = 80, limit: Int = LuaValue.prettyLimit) -> String {
    var text = LuaText(limit: limit)
    var printer = LuaValuePrinter(sharing: sharedTables)
    printer.writePretty(self, indent: 0, column: 0, width: width, depth: 0, to: &text)
    return text.string
  }

  /// A key as it is written in a table: `name`, or `[1]`, `["not a name"]`.
  static func describeKey(_ key: LuaValue) -> String {
    if case let .string(string) = key, let text = string.string, text.isLuaIdentifier {
      return text
    }
    return "[\(key.description)]"
  }
}

/// Writes values for `description` and `pretty`: each table reached twice (`sharing`) gets a
/// label the first time it is written and is its label after, so a value is written in time and
/// space linear in its distinct tables. The text it writes into is capped.
struct LuaValuePrinter {
  let sharing: Set<LuaTableIdentity>
  /// The label of each shared table written so far; `labelled` in the order they were given.
  private var labels: [LuaTableIdentity: Int] = [:]
  private var labelled: [LuaTableIdentity] = []
  /// Each table's entries in order, sorted once however often the table is measured.
  private var sorted: [LuaTableIdentity: [(key: LuaValue, value: LuaValue)]] = [:]

  init(sharing: Set<LuaTableIdentity>) { self.sharing = sharing }

  mutating func write(_ value: LuaValue, depth: Int, to text: inout LuaText) {
    if text.isDone { return }
    switch value {
    case .nil: text.append("nil")
    case let .boolean(flag): text.append(flag ? "true" : "false")
    case let .integer(integer):
      // Lua reads `-9223372036854775808` as minus a numeral too big for an integer: a float.
      text.append(integer == .min ? "math.mininteger" : String(integer))
    case let .number(number):
      if number.isInfinite {
        text.append(number > 0 ? "math.huge" : "-math.huge")
      } else {
        text.append(LuaDataFile.literal(float: number))
      }
    case let .string(string): LuaValue.quote(string, into: &text)
    case let .table(table): writeTable(table, depth: depth, to: &text)
    case let .function(reference), let .other(reference): text.append(reference.description)
    }
  }

  private mutating func writeTable(_ table: LuaTable, depth: Int, to text: inout LuaText) {
    if writeLabel(of: table, to: &text) { return }
    if table.isEmpty { return text.append("{}") }
    guard depth < LuaValue.maximumDepth else {
      return text.append("{ --[[ \(LuaValue.tooDeepMessage) ]] }")
    }
    text.append("{ ")
    if table.isSequence {
      for (position, element) in table.sequence.enumerated() {
        if text.isDone { return }
        if position > 0 { text.append(", ") }
        write(element, depth: depth + 1, to: &text)
      }
    } else {
      for (position, entry) in entries(of: table).enumerated() {
        if text.isDone { return }
        if position > 0 { text.append(", ") }
        writeKey(entry.key, depth: depth, to: &text)
        text.append(" = ")
        write(entry.value, depth: depth + 1, to: &text)
      }
    }
    text.append(" }")
  }

  /// A shared table's label: `<1>` before it the first time (false: write it), `<1>` alone
  /// after (true: written).
  private mutating func writeLabel(of table: LuaTable, to text: inout LuaText) -> Bool {
    guard sharing.contains(table.identity) else { return false }
    if let label = labels[table.identity] {
      text.append("<\(label)>")
      return true
    }
    labelled.append(table.identity)
    labels[table.identity] = labelled.count
    text.append("<\(labelled.count)>")
    return false
  }

  private mutating func writeKey(_ key: LuaValue, depth: Int, to text: inout LuaText) {
    if case let .string(string) = key, let name = string.string, name.isLuaIdentifier {
      return text.append(name)
    }
    text.append("[")
    write(key, depth: depth + 1, to: &text)
    text.append("]")
  }

  private mutating func entries(of table: LuaTable) -> [(key: LuaValue, value: LuaValue)] {
    if let known = sorted[table.identity] { return known }
    let entries = table.sortedEntries
    sorted[table.identity] = entries
    return entries
  }

  mutating func writePretty(
    _ value: LuaValue, indent: Int, column: Int, width: Int, depth: Int, to text: inout LuaText
  ) {
    guard case let .table(table) = value, !table.isEmpty, depth < LuaValue.maximumDepth,
      labels[table.identity] == nil
    else { return write(value, depth: depth, to: &text) }
    // On one line if it fits: measured by writing it, stopping at the width.
    var line = LuaText(limit: width - column, counting: false)
    let labelCount = labelled.count
    write(value, depth: depth, to: &line)
    if !line.overflowed {
      return line.bytes.withUnsafeBytes { text.append(bytes: $0) }
    }
    for identity in labelled[labelCount...] { labels[identity] = nil }  // as if not measured
    labelled.removeSubrange(labelCount...)
    _ = writeLabel(of: table, to: &text)
    let inner = indent + 2
    let margin = String(repeating: " ", count: inner)
    text.append("{\n")
    if table.isSequence {
      for element in table.sequence {
        if text.isDone { return }
        text.append(margin)
        writePretty(
          element, indent: inner, column: inner, width: width, depth: depth + 1, to: &text)
        text.append(",\n")
      }
    } else {
      for entry in entries(of: table) {
        if text.isDone { return }
        var key = LuaText(limit: .max)
        writeKey(entry.key, depth: depth, to: &key)
        text.append(margin)
        key.bytes.withUnsafeBytes { text.append(bytes: $0) }
        text.append(" = ")
        writePretty(
          entry.value, indent: inner, column: inner + key.bytes.count + 3, width: width,
          depth: depth + 1, to: &text)
        text.append(",\n")
      }
    }
    text.append(String(repeating: " ", count: indent) + "}")
  }
}

extension String {
  /// A name Lua accepts after a dot: letters, digits and `_`, not starting with a digit, and
  /// not a reserved word.
  var isLuaIdentifier: Bool {
    guard let first = utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
      return false
    }
    let valid = utf8.allSatisfy { byte in
      (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
        || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
        || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
    }
    return valid && !luaReservedWords.contains(self)
  }
}

let luaReservedWords: Set<String> = [
  "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
  "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
]
