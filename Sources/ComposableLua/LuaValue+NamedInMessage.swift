import LuaKit

extension LuaValue {
  /// A key or field in a message: a string, a number or a boolean as Lua writes it (`"jsn"`,
  /// `1`), anything else by its type. What the checks of a test's tables name.
  var namedInMessage: String {
    switch self {
    case .string, .integer, .number, .boolean: description(limit: 80)
    default: LuaValue.describeForMessage(self)
    }
  }
}
