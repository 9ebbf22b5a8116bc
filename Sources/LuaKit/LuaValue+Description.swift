extension LuaValue: CustomStringConvertible {
  /// The value as a Lua literal: `{ count = 1, tags = { "a", "b" } }`.
  public var description: String {
    switch self {
    case .nil: return "nil"
    case let .boolean(value): return String(value)
    case let .integer(value): return String(value)
    case let .number(value):
      if value.isInfinite { return value > 0 ? "math.huge" : "-math.huge" }
      return LuaDataFile.literal(float: value)
    case let .string(value): return LuaValue.quote(value)
    case let .table(table): return LuaValue.describe(table, depth: 0)
    case let .function(reference), let .other(reference): return reference.description
    }
  }

  /// A Lua string literal: text when the bytes are UTF-8, decimal escapes for the rest.
  static func quote(_ string: LuaString) -> String {
    var result = "\""
    if let text = string.string {
      for scalar in text.unicodeScalars { result += escape(scalar.value) ?? String(scalar) }
    } else {
      for byte in string.bytes {
        result += escape(UInt32(byte)) ?? (byte < 0x80 ? String(UnicodeScalar(byte)) : "\\\(byte)")
      }
    }
    return result + "\""
  }

  private static func escape(_ code: UInt32) -> String? {
    switch code {
    case 0x22: "\\\""
    case 0x5C: "\\\\"
    case 0x0A: "\\n"
    case 0x09: "\\t"
    case 0x0D: "\\r"
    // Three digits always: `\1` before a digit would read as another byte.
    case 0..<0x20, 0x7F: "\\" + String(repeating: "0", count: code < 10 ? 2 : 1) + "\(code)"
    default: nil
    }
  }

  static func describe(_ table: LuaTable, depth: Int) -> String {
    if table.isEmpty { return "{}" }
    guard depth < maximumDepth else { return "{ --[[ \(tooDeepMessage) ]] }" }
    func describe(_ value: LuaValue) -> String {
      guard case let .table(table) = value else { return value.description }
      return LuaValue.describe(table, depth: depth + 1)
    }
    if table.isSequence {
      return "{ " + table.sequence.map(describe).joined(separator: ", ") + " }"
    }
    let fields = table.sortedEntries.map { entry in
      "\(LuaValue.describeKey(entry.key)) = \(describe(entry.value))"
    }
    return "{ " + fields.joined(separator: ", ") + " }"
  }

  static func describeKey(_ key: LuaValue) -> String {
    if case let .string(string) = key, let text = string.string, text.isLuaIdentifier {
      return text
    }
    return "[\(key.description)]"
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

private let luaReservedWords: Set<String> = [
  "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
  "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
]

extension LuaValue {
  /// The value as a Lua literal laid out for a person: on one line when it fits in `width`,
  /// otherwise a table per line of its fields, indented by two spaces a level.
  public func pretty(width: Int = 80) -> String {
    LuaValue.pretty(self, indent: 0, column: 0, width: width, depth: 0)
  }

  /// `value` starting at `column` of a line indented by `indent`.
  private static func pretty(
    _ value: LuaValue, indent: Int, column: Int, width: Int, depth: Int
  ) -> String {
    let oneLine = value.description
    guard case let .table(table) = value, !table.isEmpty, column + oneLine.count > width,
      depth < maximumDepth
    else { return oneLine }
    let inner = indent + 2
    let margin = String(repeating: " ", count: inner)
    var lines: [String] = []
    if table.isSequence {
      for element in table.sequence {
        let text = pretty(element, indent: inner, column: inner, width: width, depth: depth + 1)
        lines.append(margin + text)
      }
    } else {
      for entry in table.sortedEntries {
        let key = describeKey(entry.key) + " = "
        let text = pretty(
          entry.value, indent: inner, column: inner + key.count, width: width, depth: depth + 1)
        lines.append(margin + key + text)
      }
    }
    return "{\n" + lines.joined(separator: ",\n") + ",\n" + String(repeating: " ", count: indent)
      + "}"
  }
}
