extension LuaValue {
  /// Equal values, as a snapshot compares them: the same as Lua's `==` but for what a saved
  /// file tells apart. NaN equals a NaN of its sign here: a state that holds NaN is the same
  /// state after an action that did not touch it (with IEEE equality every diff would show a
  /// change and every TestStore assertion would fail). Integers and floats stay distinct (`1`
  /// is not `1.0`), as their types differ, and so do `0.0` and `-0.0` (`1 / x` tells them
  /// apart, the saved file writes each, and the runtime's change tracking counts one over the
  /// other as a change: a test that could not see it would pass on a state it does not
  /// describe), and NaNs of the two signs, for the same reasons (`tostring` prints `nan` and
  /// `-nan`; a description and a saved file write `0/0` and `-(0/0)`). Lua's `0/0` is the NaN
  /// of the sign `LuaValue.zeroOverZero` has, the minus on x86, where Swift's `.nan` is plus.
  ///
  /// ```swift
  /// LuaValue.integer(1) == .number(1.0)  // false
  /// LuaValue.number(.nan) == .number(.nan)  // true
  /// LuaValue.number(.nan) == .number(-.nan)  // false
  /// LuaValue.number(-0.0) == .number(0.0)  // false
  /// ```
  public static func == (lhs: LuaValue, rhs: LuaValue) -> Bool {
    switch (lhs, rhs) {
    case (.nil, .nil): return true
    case let (.boolean(a), .boolean(b)): return a == b
    case let (.integer(a), .integer(b)): return a == b
    case let (.number(a), .number(b)):
      return a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN && a.sign == b.sign)
    case let (.string(a), .string(b)): return a == b
    case let (.table(a), .table(b)): return a == b
    case let (.function(a), .function(b)): return a == b
    case let (.other(a), .other(b)): return a == b
    default: return false
    }
  }

  /// The NaN Lua's `0/0` makes on this machine, as a state holds it: on x86 its sign is the
  /// minus, where Swift's `.nan` is the plus, and `==` tells NaNs of the two signs apart (a
  /// description writes them `0/0` and `-(0/0)`). The one to expect where a reducer divided by
  /// zero:
  ///
  /// ```swift
  /// await store.send("reset") { $0.ratio = .zeroOverZero }
  /// ```
  public static let zeroOverZero = LuaValue.number(LuaDataFile.zeroOverZero)

  /// What a table's hash starts with (as each case's starts with its own number).
  static let tableHashTag = 5

  public func hash(into hasher: inout Hasher) {
    switch self {
    case .nil: hasher.combine(0)
    case let .boolean(flag): hasher.combine(1); hasher.combine(flag)
    case let .integer(integer): hasher.combine(2); hasher.combine(integer)
    case let .number(number):
      hasher.combine(3)
      // Equal values hash alike: every NaN of a sign the same, -0.0 apart from 0.0 (Double's
      // own hash takes them for one value, which is allowed, but the bits say what `==` does).
      if number.isNaN {
        hasher.combine(number.sign == .minus ? 1 as UInt8 : 0)
      } else {
        hasher.combine(number.bitPattern)
      }
    case let .string(string): hasher.combine(4); hasher.combine(string)
    case let .table(table): hasher.combine(Self.tableHashTag); hasher.combine(table)
    case let .function(reference): hasher.combine(6); hasher.combine(reference)
    case let .other(reference): hasher.combine(7); hasher.combine(reference)
    }
  }
}
