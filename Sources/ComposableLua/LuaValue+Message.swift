import LuaKit

extension LuaValue {
  /// A value in a message: a number as it is (`inf`, `nan`, `1e+300`), anything else by type.
  static func describeForMessage(_ value: LuaValue) -> String {
    switch value {
    case .integer, .number: return value.description
    default: return value.typeName
    }
  }
}
