import LuaKit

/// Lua values as Swift source that builds them as `LuaValue`s: literals where Swift has them
/// (`["done": false, "id": "a"]`, `[1, 2]`, `1.0`), and the case itself where it has none
/// (`.number(.nan)`, `.string(LuaString(bytes: [255]))`).
enum SwiftLiteral {
  /// `value` as a Swift expression. A value that holds a table at several places is a closure
  /// that names each such table once, `{ () -> LuaValue in let shared1: LuaValue = [...] ...
  /// return [...] }()`: one table again when pushed into Lua, and linear in the distinct tables.
  static func of(_ value: LuaValue, indent: Int = 0) -> String {
    let sharing = value.sharedTables
    guard !sharing.isEmpty else {
      var writer = Writer(sharing: [])
      return writer.of(value, indent: indent)
    }
    var writer = Writer(sharing: sharing)
    writer.defineShared(in: value, indent: indent + 2)
    let padding = String(repeating: " ", count: indent)
    return "{ () -> LuaValue in\n" + writer.definitions + padding + "  return "
      + writer.of(value, indent: indent + 2) + "\n" + padding + "}()"
  }

  static func of(_ text: String) -> String { of(LuaString(text)) }

  /// Bytes as a Swift `[UInt8]`: `[]`, `Array("text".utf8)` for UTF-8 text, the numbers else.
  static func bytes(_ bytes: [UInt8]) -> String {
    if bytes.isEmpty { return "[]" }
    let string = LuaString(bytes: bytes)
    guard string.string != nil else { return "[\(bytes.map(String.init).joined(separator: ", "))]" }
    return "Array(\(of(string)).utf8)"
  }

  static func of(_ string: LuaString) -> String {
    guard let text = string.string else {
      return ".string(LuaString(bytes: [\(string.bytes.map(String.init).joined(separator: ", "))]))"
    }
    var result = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      case "\0": result += "\\0"
      default:
        if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
          result += "\\u{\(String(scalar.value, radix: 16))}"
        } else {
          result.unicodeScalars.append(scalar)
        }
      }
    }
    return result + "\""
  }

  /// Writes literals, naming each shared table (`shared1`) the first time it is defined.
  private struct Writer {
    let sharing: Set<LuaTableIdentity>
    var names: [LuaTableIdentity: String] = [:]
    var definitions = ""

    /// `let sharedN: LuaValue = ...` for each shared table `value` holds, those it holds first.
    mutating func defineShared(in value: LuaValue, indent: Int) {
      guard case let .table(table) = value, table.holdsTables else { return }
      let elements = table.isSequence ? table.sequence : table.sortedEntries.map(\.value)
      for element in elements {
        guard case let .table(inner) = element else { continue }
        if sharing.contains(inner.identity) {
          guard names[inner.identity] == nil else { continue }
          defineShared(in: element, indent: indent)
          let name = "shared\(names.count + 1)"
          definitions +=
            String(repeating: " ", count: indent) + "let \(name): LuaValue = "
            + of(inner, indent: indent) + "\n"
          names[inner.identity] = name
        } else {
          defineShared(in: element, indent: indent)
        }
      }
    }

    mutating func of(_ value: LuaValue, indent: Int) -> String {
      switch value {
      case .nil: return "nil"
      case let .boolean(flag): return flag ? "true" : "false"
      case let .integer(integer): return integer == .min ? ".integer(.min)" : String(integer)
      case let .number(float):
        // Swift's `.nan` is the plus NaN; Lua's `0/0` on x86 the minus one, which `==` tells apart.
        if float.isNaN { return float.sign == .minus ? ".number(-.nan)" : ".number(.nan)" }
        if float.isInfinite { return float > 0 ? ".number(.infinity)" : ".number(-.infinity)" }
        return "\(float)"
      case let .string(string): return SwiftLiteral.of(string)
      case let .table(table):
        if let name = names[table.identity] { return name }
        return of(table, indent: indent)
      case let .other(reference) where reference.isNull: return ".jsonNull"
      case .function, .other: return "nil /* \(value.typeName) */"
      }
    }

    mutating func of(_ table: LuaTable, indent: Int) -> String {
      if table.isEmpty { return table.kind == .array ? "[]" : "[:]" }
      let parts: [String]
      if table.isSequence {
        parts = table.sequence.map { of($0, indent: indent + 2) }
      } else {
        parts = table.sortedEntries.map {
          "\(of($0.key, indent: indent)): \(of($0.value, indent: indent + 2))"
        }
      }
      let inline = "[" + parts.joined(separator: ", ") + "]"
      if indent + inline.count <= 90, !inline.contains("\n") { return inline }
      let padding = String(repeating: " ", count: indent + 2)
      return "[\n" + parts.map { padding + $0 + ",\n" }.joined()
        + String(repeating: " ", count: indent) + "]"
    }
  }

  /// Statements that make `old` into `new` where `target` names `old` (`$0`): subscripts
  /// with Lua's keys and 1-based indices (`$0["todos"][1]["done"] = true`); a sequence that grew
  /// or shrank is assigned whole. A pair of tables met again at another place is assigned from
  /// the first (`$0["b"] = $0["a"]`): one table at both, written once.
  static func assignments(from old: LuaValue, to new: LuaValue, target: String) -> [String] {
    var assigner = Assigner()
    assigner.collect(old, new, target)
    return assigner.statements
  }

  private struct Assigner {
    var statements: [String] = []
    var places: [LuaTablePair: String] = [:]

    mutating func collect(_ old: LuaValue, _ new: LuaValue, _ target: String) {
      guard old != new else { return }
      guard case let .table(oldTable) = old, case let .table(newTable) = new else {
        statements.append("\(target) = \(SwiftLiteral.of(new))")
        return
      }
      let pair = LuaTablePair(old: oldTable.identity, new: newTable.identity)
      if let first = places[pair] {
        statements.append("\(target) = \(first)")
        return
      }
      places[pair] = target
      if oldTable.isSequence, newTable.isSequence, oldTable.count != newTable.count {
        // Grown or shrunk at the end: element by element; anywhere else: whole, which reads
        // better than every element after the change shifted by one.
        let (shorter, longer) = (
          min(oldTable.count, newTable.count), max(oldTable.count, newTable.count)
        )
        let oldElements = oldTable.sequence, newElements = newTable.sequence
        guard oldElements.prefix(shorter) == newElements.prefix(shorter) else {
          statements.append("\(target) = \(SwiftLiteral.of(new))")
          return
        }
        for index in shorter..<longer {
          let element = index < newElements.count ? newElements[index] : .nil
          statements.append("\(target)[\(index + 1)] = \(SwiftLiteral.of(element))")
        }
        return
      }
      if target != "$0", oldTable.isReplaced(by: newTable) {
        statements.append("\(target) = \(SwiftLiteral.of(new))")
        return
      }
      for key in oldTable.keysToCompare(with: newTable) {
        collect(oldTable[key], newTable[key], "\(target)[\(SwiftLiteral.of(key))]")
      }
    }
  }
}
