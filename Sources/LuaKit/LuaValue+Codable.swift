/// `LuaValue` in other coders (JSON, property lists). `LuaEncoder` and `LuaDecoder` do not use
/// this: they move a `LuaValue` to and from the Lua stack as it is, references included.
///
/// Elsewhere: a sequence is an array, any other table an object with its keys as strings;
/// functions and other references cannot leave Lua and fail to encode. An array decoded with
/// `null`s in it (`[1, null, 3]`, which Lua holds with a hole) is written back as it came.
extension LuaValue: Codable {
  /// Decodes a value from another coder: null is `.nil`, booleans and strings are themselves, a
  /// number is `.integer` when the coder reads it as an `Int` and `.number` otherwise, an array
  /// is an array table (a null in it leaves a hole), and an object is a map keyed by strings.
  ///
  /// ```swift
  /// let json = Data(#"{"count": 1, "tags": ["a", "b"]}"#.utf8)
  /// let value = try JSONDecoder().decode(LuaValue.self, from: json)
  /// ```
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .nil
    } else if let flag = try? container.decode(Bool.self) {
      self = .boolean(flag)
    } else if let integer = try? container.decode(Int.self) {
      self = .integer(integer)
    } else if let number = try? container.decode(Double.self) {
      self = .number(number)
    } else if let string = try? container.decode(String.self) {
      self = .string(LuaString(string))
    } else if let array = try? container.decode([LuaValue].self) {
      self = .table(LuaTable(array: array))
    } else {
      let map = try container.decode([String: LuaValue].self)
      var table = LuaTable()
      for (key, value) in map { table[key] = value }
      self = .table(table)
    }
  }

  public func encode(to encoder: any Encoder) throws {
    // Other coders cannot share: each copy is written whole. Checked at every table that holds
    // tables (the first one met may be inside a Swift value), at the cost of its depth.
    if case let .table(table) = self, table.holdsTables,
      copiesOfSharedTables(limit: Self.maximumCopiesOfSharedTables + 1)
        > Self.maximumCopiesOfSharedTables
    {
      throw EncodingError.invalidValue(
        self, .init(codingPath: [], debugDescription: Self.tooManyCopiesMessage))
    }
    var container = encoder.singleValueContainer()
    switch self {
    case .nil: try container.encodeNil()
    case let .boolean(flag): try container.encode(flag)
    case let .integer(integer): try container.encode(integer)
    case let .number(number): try container.encode(number)
    case let .string(string): try container.encode(string.description)  // whole: data
    case let .table(table):
      if table.isSequence {
        try container.encode(table.sequence)
      } else if let holes = table.arrayWithHoles {
        try container.encode(holes)
      } else {
        // An object's keys are text: `1` and `"1"`, or `true` and `"true"`, would be written
        // as one key and one of the two values lost (which one, by the dictionary's order).
        var map: [String: LuaValue] = [:]
        var keys: [String: LuaValue] = [:]
        for (key, value) in table.entries {
          let text = key.stringValue ?? key.description(limit: .max)
          if let other = keys.updateValue(key, forKey: text) {
            let (first, second) = other.typeName < key.typeName ? (other, key) : (key, other)
            throw EncodingError.invalidValue(
              self,
              .init(
                codingPath: encoder.codingPath,
                debugDescription: "the keys \(first.description(limit: 80)) and "
                  + "\(second.description(limit: 80)) of one table would both be written as "
                  + "the object key \(LuaValue.string(LuaString(text)).description(limit: 80)) "
                  + "and one value lost. To fix, keep one of them, or use string keys only."))
          }
          map[text] = value
        }
        try container.encode(map)
      }
    case let .function(reference), let .other(reference):
      throw EncodingError.invalidValue(
        self,
        .init(
          codingPath: encoder.codingPath,
          debugDescription: "\(reference) lives in Lua and cannot be encoded"))
    }
  }
}

extension LuaTable {
  /// An array (`kind`) whose keys are positive integers with holes, as `[1, null, 3]` decodes:
  /// its elements up to the largest key, `nil` in each hole. Nil for any other table, and for
  /// one whose holes would outnumber its elements many times over (`{ [1e9] = 1 }` marked an
  /// array stays an object rather than a billion nulls).
  var arrayWithHoles: [LuaValue]? {
    guard kind == .array, !entries.isEmpty else { return nil }
    var largest = 0
    for key in entries.keys {
      guard case let .integer(index) = key, index >= 1 else { return nil }
      largest = Swift.max(largest, index)
    }
    guard largest <= entries.count * 16 + 64 else { return nil }
    return (1...largest).map { entries[.integer($0)] ?? .nil }
  }
}
