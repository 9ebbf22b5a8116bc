extension LuaValue: ExpressibleByNilLiteral {
  public init(nilLiteral: ()) { self = .nil }
}

extension LuaValue: ExpressibleByBooleanLiteral {
  public init(booleanLiteral value: Bool) { self = .boolean(value) }
}

extension LuaValue: ExpressibleByIntegerLiteral {
  public init(integerLiteral value: Int) { self = .integer(value) }
}

extension LuaValue: ExpressibleByFloatLiteral {
  public init(floatLiteral value: Double) { self = .number(value) }
}

extension LuaValue: ExpressibleByStringLiteral {
  public init(stringLiteral value: String) { self = .string(LuaString(value)) }
}

extension LuaValue: ExpressibleByArrayLiteral {
  /// `[1, 2, 3]`: an array table.
  public init(arrayLiteral elements: LuaValue...) { self = .table(LuaTable(array: elements)) }
}

extension LuaValue: ExpressibleByDictionaryLiteral {
  /// `["type": "increment", "id": 3]`: a map table.
  public init(dictionaryLiteral elements: (LuaValue, LuaValue)...) {
    var table = LuaTable()
    for (key, value) in elements { table[key] = value }
    self = .table(table)
  }
}

extension LuaValue {
  public init(_ string: String) { self = .string(LuaString(string)) }
}
