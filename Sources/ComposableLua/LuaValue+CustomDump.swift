import CustomDump
import LuaKit

/// Lua values in TestStore diffs read as Lua data, not as the enum that holds it: a map as a
/// dictionary with its keys, a sequence as an array, scalars as themselves.
extension LuaValue: CustomDumpRepresentable {
  public var customDumpValue: Any { LuaDump(value: self, depth: 0).customDumpValue }
}

/// A value with its depth, so that the walk stops where every other walk over Lua data does
/// (`LuaValue.maximumDepth`), even for a value built in Swift deeper than Lua could give.
private struct LuaDump: CustomDumpRepresentable {
  let value: LuaValue
  let depth: Int

  var customDumpValue: Any {
    switch value {
    case .nil: return LuaDumpText(text: "nil")
    case let .boolean(flag): return flag
    case let .integer(integer): return integer
    case let .number(number): return number
    case let .string(string): return string.string ?? string.description
    case let .table(table):
      guard depth < LuaValue.maximumDepth else {
        return LuaDumpText(
          text: "{ --[[ nested more than \(LuaValue.maximumDepth) levels deep ]] }")
      }
      if table.isSequence, !table.isEmpty {
        return table.sequence.map { LuaDump(value: $0, depth: depth + 1) }
      }
      var fields: [String: LuaDump] = [:]
      for (key, value) in table.entries {
        fields[key.stringValue ?? "[\(key.description)]"] = LuaDump(value: value, depth: depth + 1)
      }
      return fields
    case let .function(reference), let .other(reference):
      return LuaDumpText(text: reference.description)
    }
  }
}

private struct LuaDumpText: CustomDumpStringConvertible {
  let text: String
  var customDumpDescription: String { text }
}
