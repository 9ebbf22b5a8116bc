import CustomDump
import Foundation
import LuaKit

/// Lua values in TestStore diffs read as Lua data, not as the enum that holds it: a map as a
/// dictionary with its keys, a sequence as an array, scalars as themselves.
///
/// A table reached at several places is shown as its Lua description (`<1>{ ... }`, capped as
/// every description is) wherever it is: custom-dump walks a value as a tree, and 2^40 paths to
/// 41 tables must cost 41 tables, not 2^40 dictionaries.
extension LuaValue: CustomDumpRepresentable {
  public var customDumpValue: Any {
    LuaDump(value: self, depth: 0, context: LuaDumpContext(sharing: sharedTables)).customDumpValue
  }
}

/// What one dump knows: the tables reached twice, and the description of each, made once.
private final class LuaDumpContext: @unchecked Sendable {
  let sharing: Set<LuaTableIdentity>
  private let lock = NSLock()
  private var descriptions: [LuaTableIdentity: String] = [:]

  init(sharing: Set<LuaTableIdentity>) { self.sharing = sharing }

  func description(of table: LuaTable) -> String {
    lock.withLock {
      if let known = descriptions[table.identity] { return known }
      let text = LuaValue.table(table).description
      descriptions[table.identity] = text
      return text
    }
  }
}

/// A value with its depth, so that the walk stops (`dumpedDepth`), whatever the value's depth.
private struct LuaDump: CustomDumpRepresentable {
  let value: LuaValue
  let depth: Int
  let context: LuaDumpContext

  static let dumpedDepth = 32

  var customDumpValue: Any {
    switch value {
    case .nil: return LuaDumpText(text: "nil")
    case let .boolean(flag): return flag
    case let .integer(integer): return integer
    case let .number(number): return number
    case let .string(string):
      return LuaText.capped(string.string ?? string.description)
    case let .table(table):
      if context.sharing.contains(table.identity) {
        return LuaDumpText(text: context.description(of: table))
      }
      // Below `dumpedDepth` levels a table is its Lua description (capped, as every one is):
      // custom-dump walks and diffs by recursion, a few frames a level, and a value 200 levels
      // deep would overflow the stack of a thread of the cooperative pool.
      guard depth < Self.dumpedDepth else {
        return LuaDumpText(text: context.description(of: table))
      }
      if table.isSequence, !table.isEmpty {
        return table.sequence.map { LuaDump(value: $0, depth: depth + 1, context: context) }
      }
      var fields: [String: LuaDump] = [:]
      for (key, value) in table.entries {
        fields[key.stringValue ?? "[\(key.description)]"] = LuaDump(
          value: value, depth: depth + 1, context: context)
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
