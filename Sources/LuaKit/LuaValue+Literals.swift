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
  ///
  /// Made as `table[key] = value` field by field would make it (a later key replaces an earlier
  /// equal one, nil removes), but with one identity: each change of a table draws a new one
  /// from an atomic counter, and an action built per send (`["type": "toggle", "id": 3]`) drew
  /// three.
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
  public init(_ string: String) { self = .string(LuaString(string)) }
}
