import CustomDump
import LuaKit

/// Lua values in TestStore diffs read as Lua data, not as the enum that holds it: a map as a
/// dictionary with its keys, a sequence as an array, scalars as themselves.
extension LuaValue: CustomDumpRepresentable {
  public var customDumpValue: Any {
    switch self {
    case .nil: return LuaNil()
    case let .boolean(flag): return flag
    case let .integer(integer): return integer
    case let .number(number): return number
    case let .string(string): return string.string ?? string.description
    case let .table(table):
      if table.isSequence, !table.isEmpty { return table.sequence }
      var fields: [String: LuaValue] = [:]
      for (key, value) in table.entries {
        fields[key.stringValue ?? "[\(key.description)]"] = value
      }
      return fields
    case let .function(reference), let .other(reference):
      return LuaReferenceDump(text: reference.description)
    }
  }
}

private struct LuaNil: CustomDumpStringConvertible {
  var customDumpDescription: String { "nil" }
}

private struct LuaReferenceDump: CustomDumpStringConvertible {
  let text: String
  var customDumpDescription: String { text }
}
