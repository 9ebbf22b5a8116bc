import LuaKit

/// Lua values as Swift source that builds them as `LuaValue`s: literals where Swift has them
/// (`["done": false, "id": "a"]`, `[1, 2]`, `1.0`), and the case itself where it has none
/// (`.number(.nan)`, `.string(LuaString(bytes: [255]))`).
enum SwiftLiteral {
  static func of(_ value: LuaValue, indent: Int = 0) -> String {
    switch value {
    case .nil: return "nil"
    case let .boolean(flag): return flag ? "true" : "false"
    case let .integer(integer): return integer == .min ? ".integer(.min)" : String(integer)
    case let .number(float):
      if float.isNaN { return ".number(.nan)" }
      if float.isInfinite { return float > 0 ? ".number(.infinity)" : ".number(-.infinity)" }
      return "\(float)"
    case let .string(string): return of(string)
    case let .table(table): return of(table, indent: indent)
    case .function, .other: return "nil /* \(value.typeName) */"
    }
  }

  static func of(_ text: String) -> String { of(LuaString(text)) }

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
        if scalar.value < 0x20 || scalar.value == 0x7F {
          result += "\\u{\(String(scalar.value, radix: 16))}"
        } else {
          result.unicodeScalars.append(scalar)
        }
      }
    }
    return result + "\""
  }

  static func of(_ table: LuaTable, indent: Int) -> String {
    if table.isEmpty { return table.kind == .array ? "[]" : "[:]" }
    let parts: [String]
    if table.isSequence {
      parts = table.sequence.map { of($0, indent: indent + 2) }
    } else {
      parts = table.sortedEntries.map { "\(of($0.key)): \(of($0.value, indent: indent + 2))" }
    }
    let inline = "[" + parts.joined(separator: ", ") + "]"
    if indent + inline.count <= 90, !inline.contains("\n") { return inline }
    let padding = String(repeating: " ", count: indent + 2)
    return "[\n" + parts.map { padding + $0 + ",\n" }.joined()
      + String(repeating: " ", count: indent) + "]"
  }

  /// Statements that make `old` into `new` where `target` names `old` (`$0`): subscripts
  /// with Lua's keys and 1-based indices (`$0["todos"][1]["done"] = true`); a sequence that grew
  /// or shrank is assigned whole.
  static func assignments(from old: LuaValue, to new: LuaValue, target: String) -> [String] {
    var statements: [String] = []
    collect(old, new, target, into: &statements)
    return statements
  }

  private static func collect(
    _ old: LuaValue, _ new: LuaValue, _ target: String, into statements: inout [String]
  ) {
    guard old != new else { return }
    guard case let .table(oldTable) = old, case let .table(newTable) = new else {
      statements.append("\(target) = \(of(new))")
      return
    }
    if oldTable.isSequence, newTable.isSequence, oldTable.count != newTable.count {
      // Grown or shrunk at the end: element by element; anywhere else: whole, which reads
      // better than every element after the change shifted by one.
      let (shorter, longer) = (
        min(oldTable.count, newTable.count), max(oldTable.count, newTable.count)
      )
      let oldElements = oldTable.sequence, newElements = newTable.sequence
      guard oldElements.prefix(shorter) == newElements.prefix(shorter) else {
        statements.append("\(target) = \(of(new))")
        return
      }
      for index in shorter..<longer {
        let element = index < newElements.count ? newElements[index] : .nil
        statements.append("\(target)[\(index + 1)] = \(of(element))")
      }
      return
    }
    if target != "$0", oldTable.isReplaced(by: newTable) {
      statements.append("\(target) = \(of(new))")
      return
    }
    for key in oldTable.keysToCompare(with: newTable) {
      collect(oldTable[key], newTable[key], "\(target)[\(of(key))]", into: &statements)
    }
  }
}
