import Testing

@testable import LuaKit

@Suite struct LuaValueTests {
  @Test func literals() {
    let action: LuaValue = ["type": "increment", "id": 3, "ratio": 0.5, "ok": true, "none": nil]
    #expect(action.type == "increment")
    #expect(action.id == .integer(3))
    #expect(action.ratio == .number(0.5))
    #expect(action.ok == true)
    #expect(action.none == .nil)
    #expect(action.tableValue?.count == 4)  // nil is absence, as in Lua
    let list: LuaValue = [1, "two", 3.0]
    #expect(list[1] == 1)
    #expect(list[2] == "two")
    #expect(list.tableValue?.kind == .array)
  }

  @Test func dynamicMemberLookupReadsAndWritesNestedFields() {
    var state: LuaValue = ["count": 0, "user": ["name": "ada"]]
    state.count = 1
    state.user.name = "grace"
    state.settings.theme = "dark"  // a missing table is made on the way
    #expect(state == ["count": 1, "user": ["name": "grace"], "settings": ["theme": "dark"]])
    #expect(state.missing.deeper == .nil)
  }

  @Test func floatKeysWithIntegralValuesAreIntegerKeys() {
    var table = LuaTable()
    table[.number(2.0)] = "two"
    #expect(table[.integer(2)] == "two")
    #expect(table.entries.keys.first == .integer(2))
  }

  @Test func integerAndFloatAreDifferentValues() {
    #expect(LuaValue.integer(1) != LuaValue.number(1.0))
    #expect(LuaValue.integer(1).doubleValue == LuaValue.number(1.0).doubleValue)
  }

  /// -0.0 is not 0.0, as the runtime's change tracking and the saved file tell them apart (a
  /// test expecting `0.0` passed on a state holding `-0.0`); the NaNs of a sign are one value,
  /// and the two signs two (`tostring` prints `nan` and `-nan`); equal values hash alike, and as
  /// table keys both zeros are the integer 0, as in Lua.
  @Test func negativeZeroIsNotZeroAndNaNIsItsSign() {
    #expect(LuaValue.number(-0.0) != .number(0.0))
    #expect(LuaValue.number(-0.0) == .number(-0.0))
    #expect(["z": .number(-0.0)] as LuaValue != ["z": .number(0.0)] as LuaValue)
    let quiet = Double.nan, negative = -Double.nan, signalling = Double.signalingNaN
    let payload = Double(nan: 5, signaling: false)
    for (a, b) in [(quiet, signalling), (quiet, payload), (negative, -payload)] {
      #expect(LuaValue.number(a) == .number(b))
      #expect(LuaValue.number(a).hashValue == LuaValue.number(b).hashValue)
    }
    for (a, b) in [(quiet, negative), (negative, signalling), (payload, -payload)] {
      #expect(LuaValue.number(a) != .number(b))
    }
    var table = LuaTable()
    table[.number(-0.0)] = "negative"
    table[.number(0.0)] = "positive"
    #expect(table.count == 1 && table[.integer(0)] == "positive")
  }

  /// A scalar's description is Lua that reads back as the scalar, its subtype included: the
  /// smallest integer was written `-9223372036854775808`, which Lua reads as a float.
  @Test func everyScalarsDescriptionReadsBackAsIt() throws {
    let vm = try LuaVM()
    let scalars: [LuaValue] = [
      .integer(.min), .integer(.max), .integer(0), .integer(-1), .number(-0.0), .number(0.0),
      .number(.nan), .number(.infinity), .number(-.infinity), .number(1.0), .number(5e-324),
      .number(-1e308), .number(0.1 + 0.2), .number(Double(Int.max)), .number(-Double(Int.max)),
      .boolean(true), .string(LuaString(bytes: Array(0...255))),
    ]
    for scalar in scalars {
      let read = try vm.evaluate("return " + scalar.description)
      #expect(read == [scalar], "\(scalar.description)")
      let keyed = try vm.evaluate("return " + (["k": scalar, "list": [scalar]] as LuaValue).description)
      #expect(keyed == [["k": scalar, "list": [scalar]]], "\(scalar.description)")
    }
    #expect(LuaValue.integer(.min).description == "math.mininteger")
  }

  @Test func descriptionsReadAsLua() {
    let value: LuaValue = [
      "count": 1, "ratio": 2.0, "name": "a \"quoted\"\nline", "list": [1, 2], "empty": [:],
      "two words": true,
    ]
    #expect(value.description
      == #"{ count = 1, empty = {}, list = { 1, 2 }, name = "a \"quoted\"\nline", ratio = 2.0, ["two words"] = true }"#)
    #expect(LuaValue.string(LuaString(bytes: [0x61, 0xFF])).description == #""a\255""#)
    #expect(LuaValue.number(.infinity).description == "math.huge")
  }

  /// Keys are ordered exactly, as Lua compares numbers: integers that are one double apart
  /// are not a tie, whose order hashing would decide (a different order in every copy).
  @Test func numberKeysAreOrderedExactly() {
    let keys: [LuaValue] = [
      .integer(.min), .integer(.min + 1), .number(-0x1p63 * 2), .number(-1.5), .integer(-1),
      .number(0.5), .integer(1 << 62), .integer((1 << 62) + 1), .integer((1 << 62) + 2),
      .integer(.max), .number(0x1p63),
    ]
    let expected: [LuaValue] = [
      .number(-0x1p63 * 2), .integer(.min), .integer(.min + 1), .number(-1.5), .integer(-1),
      .number(0.5), .integer(1 << 62), .integer((1 << 62) + 1), .integer((1 << 62) + 2),
      .integer(.max), .number(0x1p63),
    ]
    for shift in 0..<keys.count {
      let rotated = Array(keys[shift...] + keys[..<shift])
      #expect(rotated.sorted(by: LuaValue.keyOrder) == expected)
      let table = LuaTable(entries: Dictionary(uniqueKeysWithValues: rotated.map { ($0, 1) }))
      #expect(table.sortedEntries.map(\.key) == expected)
    }
  }

  @Test func truthinessIsLuas() {
    #expect(!LuaValue.nil.isTruthy)
    #expect(!LuaValue.boolean(false).isTruthy)
    #expect(LuaValue.integer(0).isTruthy)
    #expect(LuaValue.string("").isTruthy)
  }

  @Test func aSnapshotIsAValue() throws {
    let vm = try LuaVM()
    let function = try vm.load("local t = ... t.count = t.count + 1 return t", chunkName: "bump.lua")
    let before: LuaValue = ["count": 1]
    let after = try vm.call(function, before)[0]
    #expect(before.count == 1)
    #expect(after.count == 2)
  }

  @Test func typeNamesTellIntegersFromFloats() throws {
    let vm = try LuaVM()
    let values = try vm.evaluate("return nil, true, 1, 1.5, 's', {}, print, coroutine.create(print)")
    #expect(values.map(\.typeName)
      == ["nil", "boolean", "integer", "float", "string", "table", "function", "thread"])
  }

  @Test func luaValueEncodesToJSONForOtherCoders() throws {
    let value: LuaValue = ["list": [1, 2.5, "x"], "flag": false]
    let data = try JSONEncoder().encode(value)
    #expect(try JSONDecoder().decode(LuaValue.self, from: data) == value)
  }

  /// Each kind of key whose text is a string key's: written as one object key, one value would
  /// be lost, so encoding fails and names both keys.
  @Test(arguments: [
    (LuaValue.integer(1), "1"), (.boolean(true), "true"), (.number(1.5), "1.5"),
    (.integer(-7), "-7"),
  ])
  func keysWrittenAsTheSameTextAreRefused(key: LuaValue, string: String) throws {
    let value = LuaValue.table(
      LuaTable(entries: [key: "from the key", .string(LuaString(string)): "from the string"]))
    #expect {
      try JSONEncoder().encode(value)
    } throws: { error in
      guard case let EncodingError.invalidValue(_, context) = error else { return false }
      let message = context.debugDescription
      return message.contains("would both be written as the object key \"\(string)\"")
        && message.contains("\"\(string)\"") && message.hasSuffix("use string keys only.")
    }
    // Alone, each is written.
    let alone = LuaValue.table(LuaTable(entries: [key: "x", "name": "y"]))
    #expect(try JSONDecoder().decode(LuaValue.self, from: JSONEncoder().encode(alone)).name == "y")
  }
}

import Foundation

@Suite struct ReadmeExampleTests {
  /// The `LuaValue` example of the README, word for word.
  @Test func theValuesExampleReadsAsTheReadmeSays() {
    var state: LuaValue = ["count": 0, "todos": []]
    state.count = 1
    state.todos[1] = ["title": "Buy milk", "done": false]
    #expect(state.description == #"{ count = 1, todos = { { done = false, title = "Buy milk" } } }"#)
  }
}

@Suite struct UnpushableKeyTests {
  /// A Swift table can hold keys Lua cannot: pushing one is a conversion error naming the
  /// field, not an abort (Lua raises, and outside a protected call that ends the process).
  @Test func nilAndNaNKeysAreConversionErrors() throws {
    let vm = try LuaVM()
    for key in [LuaValue.nil, .number(.nan)] {
      var inner = LuaTable()
      inner[key] = 1
      let value: LuaValue = ["outer": .table(inner)]
      #expect {
        try vm.reference(to: value)
      } throws: { error in
        guard case let .conversion(path, message) = error as? LuaError else { return false }
        return path == "value.outer" && message.hasPrefix("a table key cannot be")
      }
    }
    #expect(try vm.evaluate("return 1") == [1])
  }
}
