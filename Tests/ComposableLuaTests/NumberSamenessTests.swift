import ComposableLua
import LuaKit
import TestSupport
import Testing

/// Four judges say whether a number in the state is the one that was there: the journal (what an
/// action changed, which the REPL prints and a TestStore's failure shows), `LuaValue`'s `==`
/// (what a TestStore asserts), a description (what a failure prints) and a saved file (what
/// loads back). They disagreed on NaN's sign: the journal counted `-(0/0)` over `0/0` as a
/// change that `==` did not see and a description printed as `0/0` on both sides, so a test
/// passed on a state `tostring` prints otherwise. Each pair of awkward numbers is judged by all
/// four, which must agree.
@Suite struct NumberSamenessTests {
  /// Numbers as Lua source, each told apart by something Lua code can see, but the last two
  /// NaNs, which differ only in bits `string.pack` alone shows and are one value to every judge.
  static let numbers = [
    "0", "0.0", "-0.0", "1", "1.0", "-1", "0/0", "-(0/0)", "math.huge", "-math.huge",
    "math.maxinteger", "math.mininteger", "2^53", "2^53 + 1.0", "1e300", "5e-324",
    "string.unpack('d', string.pack('i8', 0x7FF8000000000001))",
    "string.unpack('d', string.pack('i8', -0x0007FFFFFFFFFFFF))",
  ]

  static let source = """
    local numbers = { \(numbers.joined(separator: ", ")) }
    return {
      initial_state = function() return { x = numbers[1] } end,
      reduce = function(state, action) state.x = numbers[action.to] end,
    }
    """

  @Test func theJournalEqualityDescriptionAndSavedFileAgreeOnEveryPair() throws {
    let feature = try LuaFeature(source: Self.source, file: "numbers.lua")
    let context = LuaStepContext(dependencies: nil, effects: .keep, readsChanges: true)
    var values: [LuaValue] = []
    for index in Self.numbers.indices {
      _ = try feature.step(["type": "set", "to": .integer(index + 1)])
      values.append(try feature.state()["x"])
    }
    // The two payload NaNs are the plus and the minus NaN to every judge.
    #expect(values[16] == values[7] && values[17] == values[6] && values[6] != values[7])
    for (a, first) in values.enumerated() {
      for (b, second) in values.enumerated() {
        let pair = "\(Self.numbers[a]) then \(Self.numbers[b])"
        _ = try feature.step(["type": "set", "to": .integer(a + 1)])
        let outcome = feature.step(["type": "set", "to": .integer(b + 1)], context)
        let changed = try !outcome.changes.get().isEmpty
        let equal = first == second
        #expect(changed == !equal, "journal and ==: \(pair)")
        #expect((first.description == second.description) == equal, "description: \(pair)")
        #expect(first.hashValue == second.hashValue || !equal, "hash: \(pair)")
        if a == b { #expect(equal, "\(pair) is not itself") }
      }
      let text = try LuaDataFile.text(of: ["x": first], root: "state")
      #expect(try LuaDataFile.read(Array(text.utf8), chunkName: "s.lua")["x"] == first)
    }
  }

  /// What a description writes is the number Lua reads back, for each: `-(0/0)` is a NaN of the
  /// other sign than `0/0`'s, as `tostring` in `lua5.4` prints `nan` and `-nan`.
  @Test func aDescriptionReadsBackInLuaAsTheSameNumber() throws {
    let vm = try LuaVM()
    for number in Self.numbers {
      let value = try vm.evaluate("return " + number)[0]
      let again = try vm.evaluate("return " + value.description)[0]
      #expect(again == value, "\(number) described as \(value.description)")
      let printed = try vm.evaluate(
        "return tostring(\(number)) == tostring(\(value.description))")[0]
      #expect(printed == true, "\(number)")
    }
  }

  @Test func aTestStoreSeesANaNOfTheOtherSign() async throws {
    let store = try testStore(
      """
      return {
        initial_state = function() return { n = 0/0 } end,
        reduce = function(state, action) state.n = -state.n end,
      }
      """)
    let other = LuaValue.number(-LuaValue.zeroOverZero.doubleValue!)
    await withKnownIssue {
      await store.send("flip")  // n is now -(0/0): the test asserted nothing changed
    }
    await store.send("flip") { $0.n = .zeroOverZero }
    await store.send("flip") { $0.n = other }
  }
}
