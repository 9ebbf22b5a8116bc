/// A Lua data file: `return <a table literal>`, the way a Lua program keeps data it reads back
/// with `load`, and readable by the person who opens it.
///
/// It holds every value plain Lua data can hold, exactly: strings as bytes (text as it is, any
/// other byte as a `\ddd` escape), integers apart from floats (`1` and `1.0`), `-0.0`, `0/0`
/// for NaN and `1/0` for infinity, and keys of every kind (`[1]`, `[2.5]`, `[true]`,
/// `["not a name"]`). What plain data cannot hold (a function, a coroutine, a userdata) is
/// refused while writing, with the field named.
///
/// Reading runs the file as a text-only chunk with no globals at all, under the VM's limits,
/// and takes what it returns only if that is plain data: a file can compute nothing it could
/// not have written as a literal, and cannot reach anything in the VM.
public enum LuaDataFile {
  /// `value` as the text of a data file, starting with `header` (one comment line per line
  /// of it) when there is one. `root` names the value in errors (`state.todos[3].done`).
  public static func text(
    of value: LuaValue, root: String = "value", header: String? = nil
  ) throws(LuaError) -> String {
    var writer = Writer()
    if let header {
      for line in header.split(separator: "\n", omittingEmptySubsequences: false) {
        writer.output += "-- \(line)\n"
      }
    }
    writer.output += "return "
    do throws(LuaError) { try writer.write(value, indent: 0) } catch {
      throw error.rooted(at: root)
    }
    writer.output += "\n"
    return writer.output
  }

  /// A number as Lua source that reads back as exactly this number, integer or float.
  static func literal(integer: Int) -> String {
    // `-9223372036854775808` reads as minus a number too big for an integer: a float.
    integer == .min ? "(-9223372036854775807 - 1)" : String(integer)
  }

  static func literal(float: Double) -> String {
    if float.isNaN { return "0/0" }
    if float.isInfinite { return float > 0 ? "1/0" : "-1/0" }
    // Swift writes the shortest digits that read back as the same double, always with a `.`
    // or an exponent (`1.0`, `-0.0`, `1e+16`), so Lua reads a float, never an integer.
    return "\(float)"
  }

  /// Writes values; an error's path is built on the way out (`LuaError.under`), so a save
  /// that succeeds builds none.
  private struct Writer {
    var output = ""
    /// A table goes on one line when it holds no table with something in it and fits this.
    let inlineWidth = 80

    mutating func write(_ value: LuaValue, indent: Int) throws(LuaError) {
      switch value {
      case .nil: output += "nil"
      case let .boolean(flag): output += flag ? "true" : "false"
      case let .integer(integer): output += LuaDataFile.literal(integer: integer)
      case let .number(float): output += LuaDataFile.literal(float: float)
      case let .string(string): output += LuaValue.quote(string)
      case let .table(table): try write(table, indent: indent)
      case .function:
        throw .conversion(path: "", message: "a function cannot be saved: keep data only")
      case let .other(reference):
        throw .conversion(
          path: "", message: "\(reference.description) cannot be saved: keep data only")
      }
    }

    mutating func write(_ table: LuaTable, indent: Int) throws(LuaError) {
      guard indent / 2 < LuaValue.maximumDepth else {
        throw .conversion(path: "", message: LuaValue.tooDeepMessage)
      }
      if table.isEmpty {
        output += "{}"
        return
      }
      // Each entry: its key as written (none in a sequence), the key itself, the value.
      let entries: [(source: String?, key: LuaValue, value: LuaValue)]
      if table.isSequence {
        entries = table.sequence.enumerated().map { (nil, .integer($0 + 1), $1) }
      } else {
        entries = try table.sortedEntries.map { entry throws(LuaError) in
          (try Self.source(of: entry.key), entry.key, entry.value)
        }
      }
      if let inline = Self.inline(entries), indent + inline.count <= inlineWidth {
        output += inline
        return
      }
      let padding = String(repeating: " ", count: indent + 2)
      output += "{\n"
      for entry in entries {
        output += padding
        if let source = entry.source { output += "\(source) = " }
        do throws(LuaError) { try write(entry.value, indent: indent + 2) } catch {
          throw error.under(LuaPath.component(entry.key))
        }
        output += ",\n"
      }
      output += String(repeating: " ", count: indent) + "}"
    }

    /// `{ a = 1, b = "x" }` when every value is a scalar or an empty table; nil otherwise.
    static func inline(_ entries: [(source: String?, key: LuaValue, value: LuaValue)]) -> String? {
      var parts: [String] = []
      for entry in entries {
        let value: String
        switch entry.value {
        case .nil, .boolean, .integer, .number, .string: value = entry.value.dataLiteral
        case let .table(table) where table.isEmpty: value = "{}"
        default: return nil
        }
        parts.append(entry.source.map { "\($0) = \(value)" } ?? value)
      }
      return "{ " + parts.joined(separator: ", ") + " }"
    }

    /// How a key is written: `name`, or `[1]`, `["not a name"]`, `[true]`.
    static func source(of key: LuaValue) throws(LuaError) -> String {
      switch key {
      case let .string(string):
        if let text = string.string, text.isLuaIdentifier { return text }
        return "[\(LuaValue.quote(string))]"
      case .boolean, .integer, .number:
        return "[\(key.dataLiteral)]"
      default:
        throw .conversion(path: "", message: "a key that is \(key.typeName) cannot be saved")
      }
    }
  }
}

extension LuaValue {
  /// A scalar as the data file writes it.
  fileprivate var dataLiteral: String {
    switch self {
    case let .integer(integer): LuaDataFile.literal(integer: integer)
    case let .number(float): LuaDataFile.literal(float: float)
    case let .string(string): LuaValue.quote(string)
    default: description
    }
  }
}

extension LuaVM {
  /// Reads a data file written by `LuaDataFile.text(of:)` (or by hand): runs `text` as a
  /// text-only chunk with an empty table for its globals, under this VM's limits, and returns
  /// the one value it returns if that is plain data: nil, booleans, numbers, strings, and
  /// tables of these, at most `LuaValue.maximumDepth` levels deep. `chunkName` is how errors
  /// name the file (`todos.saved.lua:3: unexpected symbol near '}'`).
  public func readDataFile(_ text: String, chunkName: String) throws(LuaError) -> LuaValue {
    let chunk = try load(text, chunkName: chunkName, globals: .empty)
    let results = try call(chunk)
    guard results.count <= 1 else {
      throw .conversion(
        path: chunkName,
        message: "a data file returns one value, this one returned \(results.count)")
    }
    let value = results.first ?? .nil
    do throws(LuaError) { try Self.checkPlainData(value, depth: 0) } catch {
      throw error.rooted(at: chunkName)
    }
    return value
  }

  private static func checkPlainData(_ value: LuaValue, depth: Int) throws(LuaError) {
    switch value {
    case .nil, .boolean, .integer, .number, .string: return
    case .function, .other:
      throw .conversion(path: "", message: "\(value.typeName) is not data")
    case let .table(table):
      guard depth < LuaValue.maximumDepth else {
        throw .conversion(path: "", message: LuaValue.tooDeepMessage)
      }
      for (key, element) in table.entries {
        try checkPlainData(key, depth: depth + 1)
        do throws(LuaError) { try checkPlainData(element, depth: depth + 1) } catch {
          throw error.under(LuaPath.component(key))
        }
      }
    }
  }
}
