/// Paths of fields in conversion errors: `state.todos[3].title`.
///
/// Paths cost nothing when a conversion succeeds: an error starts with the path relative to
/// where it happened, and each level it passes through on the way out puts its own component
/// in front (`under(_:)`), until the entry point adds the root name (`rooted(at:)`).
/// Indices are Lua's, 1-based, because the tables they point into are Lua's.
enum LuaPath {
  static func component(key: String) -> String {
    if key.isLuaIdentifier { return "." + key }
    return "[" + LuaValue.quote(LuaString(key)) + "]"
  }

  static func component(index: Int) -> String { "[\(index)]" }

  static func component(_ key: LuaValue) -> String {
    switch key {
    case let .string(string): if let text = string.string { return component(key: text) }
    case let .integer(index): return component(index: index)
    default: break
    }
    return "[\(key.description)]"
  }
}

extension LuaError {
  /// The same error, one level further out: `component` goes in front of the path.
  func under(_ component: String) -> LuaError {
    guard case let .conversion(path, message) = self else { return self }
    return .conversion(path: component + path, message: message)
  }

  /// The error with its path starting at `root` (`state`, `action`).
  func rooted(at root: String) -> LuaError { under(root) }
}
