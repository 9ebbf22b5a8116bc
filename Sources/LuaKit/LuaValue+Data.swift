/// Where a value is not plain data, and what is there instead.
public struct LuaDataProblem: Equatable, Sendable, CustomStringConvertible {
  /// The path from the value checked (`.f`, `[2].handler`), empty for the value itself.
  public let path: String
  /// What is there: `a function is not data`.
  public let message: String

  /// The problem `message` at `path`.
  ///
  /// ```swift
  /// let problem = LuaDataProblem(path: ".handler", message: "a function is not data")
  /// print(problem)  // .handler: a function is not data
  /// ```
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
  /// Linear in the distinct tables, shared ones included: the walk enters each table once (by
  /// its identity), in key order, and answers the first problem it meets, with the path it
  /// took there. (A snapshot has already refused a cycle and nesting past `maximumDepth`.)
  public var dataProblem: LuaDataProblem? {
    var checked = Set<LuaTableIdentity>()
    func problem(in value: LuaValue) -> LuaDataProblem? {
      switch value {
      case .nil, .boolean, .integer, .number, .string: return nil
      case .function, .other:
        return LuaDataProblem(path: "", message: "\(Self.describeNotData(value)) is not data")
      case let .table(table):
        guard checked.insert(table.identity).inserted else { return nil }
        if table.hadMetatable {
          return LuaDataProblem(path: "", message: "a table with a metatable is not data")
        }
        for (key, element) in table.sortedEntries {
          switch key {
          case .function, .other, .table:
            return LuaDataProblem(
              path: "", message: "a key that is \(Self.describeNotData(key)) is not data")
          default: break
          }
          if let found = problem(in: element) {
            return LuaDataProblem(
              path: LuaPath.component(key) + found.path, message: found.message)
          }
        }
        return nil
      }
    }
    return problem(in: self)
  }

  private static func describeNotData(_ value: LuaValue) -> String {
    switch value {
    case .function: "a function"
    case let .other(reference): reference.typeName == "thread" ? "a coroutine" : "a userdata"
    case .table: "a table"
    default: "a \(value.typeName)"
    }
  }
}
