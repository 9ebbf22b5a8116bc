/// Where a value is not plain data, and what is there instead.
public struct LuaDataProblem: Equatable, Sendable, CustomStringConvertible {
  /// The path from the value checked (`.f`, `[2].handler`), empty for the value itself.
  public let path: String
  /// What is there: `a function is not data`.
  public let message: String

  public init(path: String, message: String) {
    self.path = path
    self.message = message
  }

  public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}

extension LuaValue {
  /// Why this value is not plain data, and where; nil when it is. Plain data is what a state
  /// holds: nil, booleans, numbers, strings, and tables of these keyed by strings, numbers and
  /// booleans, with no metatable (but the array marker). A function, a userdata (`json.null`
  /// too), a coroutine or a table that had a metatable is not.
  ///
  /// Linear in the distinct tables, shared ones included: each table knows whether it is data
  /// (`LuaTable.isData`), so the walk never enters a table that is, and goes down one path to
  /// the first thing that is not. (A snapshot has already refused a cycle and nesting past
  /// `maximumDepth`.)
  public var dataProblem: LuaDataProblem? {
    var path = ""
    var value = self
    while true {
      switch value {
      case .nil, .boolean, .integer, .number, .string: return nil
      case .function, .other:
        return LuaDataProblem(path: path, message: "\(Self.describeNotData(value)) is not data")
      case let .table(table):
        if table.isData { return nil }
        if table.hadMetatable {
          return LuaDataProblem(path: path, message: "a table with a metatable is not data")
        }
        // The first entry, in a stable order, whose key or value is not data (there is one).
        guard
          let (key, element) = table.sortedEntries.first(where: {
            LuaTable.isNotData($0.key) || LuaTable.isNotData($0.value)
          })
        else { return nil }
        if LuaTable.isNotData(key) {
          return LuaDataProblem(
            path: path, message: "a key that is \(Self.describeNotData(key)) is not data")
        }
        path += LuaPath.component(key)
        value = element
      }
    }
  }

  private static func describeNotData(_ value: LuaValue) -> String {
    switch value {
    case .function: "a function"
    case let .other(reference): reference.typeName == "thread" ? "a coroutine" : "a userdata"
    case .table: "a table with a metatable"
    default: "a \(value.typeName)"
    }
  }
}
