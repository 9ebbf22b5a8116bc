extension LuaValue: ExpressibleByNilLiteral {
  /// `nil`: Lua's nil.
  ///
  /// ```swift
  /// let nothing: LuaValue = nil  // .nil
  /// ```
  public init(nilLiteral: ()) { self = .nil }
}

extension LuaValue: ExpressibleByBooleanLiteral {
  /// `true` or `false`: a Lua boolean.
  ///
  /// ```swift
  /// let done: LuaValue = true  // .boolean(true)
  /// ```
  public init(booleanLiteral value: Bool) { self = .boolean(value) }
}

extension LuaValue: ExpressibleByIntegerLiteral {
  /// A number written without a point: a Lua integer, never a float.
  ///
  /// ```swift
  /// let count: LuaValue = 3  // .integer(3), not .number(3.0)
  /// ```
  public init(integerLiteral value: Int) { self = .integer(value) }
}

extension LuaValue: ExpressibleByFloatLiteral {
  /// A number written with a point or an exponent: a Lua float, even when it is whole.
  ///
  /// ```swift
  /// let half: LuaValue = 0.5  // .number(0.5)
  /// let one: LuaValue = 1.0  // .number(1.0), which is not equal to 1
  /// ```
  public init(floatLiteral value: Double) { self = .number(value) }
}

extension LuaValue: ExpressibleByStringLiteral {
  /// A string literal: a Lua string of its UTF-8 bytes.
  ///
  /// ```swift
  /// let type: LuaValue = "increment"  // .string("increment")
  /// ```
  public init(stringLiteral value: String) { self = .string(LuaString(value)) }
}

extension LuaValue: ExpressibleByArrayLiteral {
  /// `[1, 2, 3]`: an array table.
  ///
  /// ```swift
  /// let tags: LuaValue = ["work", "home"]
  /// tags[1]  // "work": indices start at 1, as in Lua
  /// ```
  public init(arrayLiteral elements: LuaValue...) { self = .table(LuaTable(array: elements)) }
}

extension LuaValue: ExpressibleByDictionaryLiteral {
  /// `["type": "increment", "id": 3]`: a map table.
  ///
  /// Made as `table[key] = value` field by field would make it (a later key replaces an earlier
  /// equal one, nil removes), but with one identity: each change of a table draws a new one
  /// from an atomic counter, and an action built per send (`["type": "toggle", "id": 3]`) drew
  /// three.
  ///
  /// ```swift
  /// let action: LuaValue = ["type": "add", "amount": 3]
  /// ```
  public init(dictionaryLiteral elements: (LuaValue, LuaValue)...) {
    var entries: [LuaValue: LuaValue] = Dictionary(minimumCapacity: elements.count)
    for (key, value) in elements {
      if case .nil = value {
        entries[key.normalizedKey] = nil
      } else {
        entries[key.normalizedKey] = value
      }
    }
    self = .table(
      LuaTable(kind: .map, normalizedEntries: entries, isTree: !LuaTable.holdsTables(entries)))
  }
}

extension LuaValue {
  /// A Lua string of the UTF-8 bytes of `string`: for a `String` that is not a literal.
  ///
  /// ```swift
  /// let name = "Blob"
  /// let value = LuaValue(name)  // .string("Blob")
  /// ```
  public init(_ string: String) { self = .string(LuaString(string)) }
}
