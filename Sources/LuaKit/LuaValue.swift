/// A Lua value as a Swift value: what Swift sees of state, actions and results.
///
/// Scalars and tables are copied out of Lua (a table becomes a `LuaTable` snapshot); functions,
/// userdata and coroutines stay in Lua and are held by reference. Integers and floats stay
/// distinct, as in Lua 5.4: `.integer(1) != .number(1.0)`.
@dynamicMemberLookup
public enum LuaValue: Hashable, Sendable {
  /// Lua's `nil`: no value. A table holds none; setting a field to it removes the field.
  case `nil`
  /// A Lua boolean.
  case boolean(Bool)
  /// A Lua integer, 64 bits wide, never equal to a float: `.integer(1) != .number(1.0)`.
  case integer(Int)
  /// A Lua float.
  case number(Double)
  /// A Lua string: bytes, usually but not always UTF-8.
  case string(LuaString)
  /// A Lua table, copied out as a snapshot.
  case table(LuaTable)
  /// A Lua function (a Lua closure or a host function), held by reference: it stays in its VM.
  case function(LuaReference)
  /// userdata, light userdata or a coroutine
  case other(LuaReference)

  /// How deep every walk over Lua data goes, in both directions: a snapshot, a push, the
  /// encoder and decoder, a saved file, a description. Deeper data is refused with
  /// `tooDeepMessage` (the walks recurse, and the stack of a thread is not unbounded).
  public static let maximumDepth = 200

  static var tooDeepMessage: String { "nested more than \(maximumDepth) levels deep" }

  /// Lua's name for the type, as `type()` gives it, with `integer`/`float` told apart.
  public var typeName: String {
    switch self {
    case .nil: return "nil"
    case .boolean: return "boolean"
    case .integer: return "integer"
    case .number: return "float"
    case .string: return "string"
    case .table: return "table"
    case .function: return "function"
    case let .other(reference): return reference.typeName
    }
  }

  // MARK: Reading

  /// The boolean, or nil for any other type.
  public var boolValue: Bool? { if case let .boolean(value) = self { value } else { nil } }
  /// The integer, or nil for any other type: a float is not one, even when it is whole.
  public var intValue: Int? { if case let .integer(value) = self { value } else { nil } }
  /// The number, integer or float.
  public var doubleValue: Double? {
    switch self {
    case let .integer(value): Double(value)
    case let .number(value): value
    default: nil
    }
  }
  /// The string as text; nil for other types and for bytes that are not UTF-8.
  public var stringValue: String? {
    if case let .string(value) = self { value.string } else { nil }
  }
  /// Whether this is `.nil`.
  public var isNil: Bool { if case .nil = self { true } else { false } }
  /// A string's text for a person to read: what is not UTF-8 shown as U+FFFD, never lost (a
  /// test's name or a failure's message with a stray byte). Nil for what is not a string.
  public var readableString: String? {
    guard case let .string(string) = self else { return nil }
    return String(decoding: string.bytes, as: UTF8.self)
  }
  /// The table, or nil for any other type.
  public var tableValue: LuaTable? { if case let .table(value) = self { value } else { nil } }

  /// Lua truthiness: everything but nil and false.
  public var isTruthy: Bool {
    switch self {
    case .nil, .boolean(false): false
    default: true
    }
  }

  // MARK: Indexing

  /// `value.title`: the field of a table, `.nil` when absent or when this is not a table.
  /// Setting a field of `.nil` makes it a table, so `state.user.name = "x"` builds as it goes.
  public subscript(dynamicMember key: String) -> LuaValue {
    get { self[.string(LuaString(key))] }
    set { self[.string(LuaString(key))] = newValue }
  }

  /// `value[key]`: the field `key` of a table, `.nil` when absent or when this is not a table.
  /// Setting a field of `.nil` makes it a table; setting one of any other value that is not a
  /// table is a precondition failure.
  public subscript(key: LuaValue) -> LuaValue {
    get { tableValue?[key] ?? .nil }
    set {
      var table: LuaTable
      switch self {
      case let .table(existing): table = existing
      case .nil: table = LuaTable()
      default: preconditionFailure("cannot set the field \(key) of a \(typeName) value")
      }
      self = .nil  // keeps the table uniquely referenced while it changes
      table[key] = newValue
      self = .table(table)
    }
  }

  /// `value[3]`: the element at a 1-based Lua index.
  public subscript(index: Int) -> LuaValue {
    get { self[.integer(index)] }
    set { self[.integer(index)] = newValue }
  }

  // MARK: Keys

  /// Lua stores a float key with an integral value as the integer key.
  var normalizedKey: LuaValue {
    if case let .number(value) = self, let integer = Int(exactly: value) {
      return .integer(integer)
    }
    return self
  }

  static func keyOrder(_ lhs: LuaValue, _ rhs: LuaValue) -> Bool {
    func rank(_ value: LuaValue) -> Int {
      switch value {
      case .integer, .number: 0
      case .string: 1
      case .boolean: 2
      default: 3
      }
    }
    let (left, right) = (rank(lhs), rank(rhs))
    if left != right { return left < right }
    switch (lhs, rhs) {
    case let (.string(a), .string(b)): return a < b
    case (.boolean(false), .boolean(true)): return true
    // Numbers exactly, as Lua compares them: as doubles, 2^62 + 1 and 2^62 + 2 would tie, and a
    // tie leaves the order to hashing (a different order in each copy of a table).
    case let (.integer(a), .integer(b)): return a < b
    case let (.integer(a), .number(b)): return Self.isLess(a, b)
    case let (.number(a), .integer(b)): return !Self.isLess(b, a) && !Self.isEqual(b, a)
    case let (.number(a), .number(b)): return a < b || (!a.isNaN && b.isNaN)
    default: return lhs.description(limit: .max) < rhs.description(limit: .max)
    }
  }

  /// `integer < float`, exactly.
  private static func isLess(_ integer: Int, _ float: Double) -> Bool {
    if float.isNaN { return true }  // NaN after every number, as the sort needs an order
    if float >= 0x1p63 { return true }
    if float < -0x1p63 { return false }
    return integer < Int(float.rounded(.up))  // within Int's range here
  }

  /// `integer == float`, exactly.
  private static func isEqual(_ integer: Int, _ float: Double) -> Bool {
    float >= -0x1p63 && float < 0x1p63 && float.rounded() == float && Int(float) == integer
  }
}
