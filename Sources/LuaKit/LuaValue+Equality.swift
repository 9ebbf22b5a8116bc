extension LuaValue {
  /// Equal values, as a snapshot compares them: the same as Lua's `==` but for NaN, which
  /// equals itself here. A state that holds NaN is the same state after an action that did not
  /// touch it: with IEEE equality every diff would show a change and every TestStore assertion
  /// would fail. Integers and floats stay distinct (`1` is not `1.0`), as their types differ.
  ///
  /// ```swift
  /// LuaValue.integer(1) == .number(1.0)  // false
  /// LuaValue.number(.nan) == .number(.nan)  // true
  /// ```
  public static func == (lhs: LuaValue, rhs: LuaValue) -> Bool {
    switch (lhs, rhs) {
    case (.nil, .nil): return true
    case let (.boolean(a), .boolean(b)): return a == b
    case let (.integer(a), .integer(b)): return a == b
    case let (.number(a), .number(b)): return a == b || (a.isNaN && b.isNaN)
    case let (.string(a), .string(b)): return a == b
    case let (.table(a), .table(b)): return a == b
    case let (.function(a), .function(b)): return a == b
    case let (.other(a), .other(b)): return a == b
    default: return false
    }
  }

  /// What a table's hash starts with (as each case's starts with its own number).
  static let tableHashTag = 5

  public func hash(into hasher: inout Hasher) {
    switch self {
    case .nil: hasher.combine(0)
    case let .boolean(flag): hasher.combine(1); hasher.combine(flag)
    case let .integer(integer): hasher.combine(2); hasher.combine(integer)
    case let .number(number):
      hasher.combine(3)
      if number.isNaN { hasher.combine(0 as UInt8) } else { hasher.combine(number) }
    case let .string(string): hasher.combine(4); hasher.combine(string)
    case let .table(table): hasher.combine(Self.tableHashTag); hasher.combine(table)
    case let .function(reference): hasher.combine(6); hasher.combine(reference)
    case let .other(reference): hasher.combine(7); hasher.combine(reference)
    }
  }
}
