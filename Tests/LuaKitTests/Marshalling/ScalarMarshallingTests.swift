import Foundation
import SeededRandom
import Testing

@testable import LuaKit

@Suite struct ScalarMarshallingTests {
  @Test func integersBecomeLuaIntegersAndDoublesFloats() throws {
    let vm = try LuaVM()
    let check = try vm.load(
      "local t = ... return math.type(t.int), math.type(t.double), math.type(t.whole)",
      chunkName: "check.lua")
    struct Numbers: Codable { var int = 3; var double = 2.5; var whole = 2.0 }
    let results = try vm.call(check, arguments: [.encoded(Numbers())])
    #expect(results == ["integer", "float", "float"])
  }

  @Test func anIntegralFloatDecodesIntoAnIntOnlyWhenExact() throws {
    #expect(try decodeLua(Int.self, "return 2.0") == 2)
    #expect(conversionError { _ = try decodeLua(Int.self, "return 2.5") }
      == "state: expected integer, got float 2.5")
    #expect(conversionError { _ = try decodeLua(Int.self, "return 2^63") }
      == "state: expected integer, got float 9.223372036854776e+18")
  }

  @Test func anIntegerDecodesIntoADouble() throws {
    #expect(try decodeLua(Double.self, "return 7") == 7.0)
  }

  @Test func integerTypesAreRangeChecked() throws {
    struct Small: Codable { var small: Int8 }
    #expect(conversionError { _ = try decodeLua(Small.self, "return { small = 300 }") }
      == "state.small: 300 is out of range for Int8")
    let vm = try LuaVM()
    #expect(conversionError { _ = try LuaEncoder().encode(UInt64.max, in: vm, rootName: "id") }
      == "id: 18446744073709551615 does not fit in a Lua integer")
  }

  @Test func booleansAndStringsAreStrict() throws {
    #expect(try decodeLua(Bool.self, "return false") == false)
    #expect(conversionError { _ = try decodeLua(Bool.self, "return 0") }
      == "state: expected boolean, got integer")
    #expect(conversionError { _ = try decodeLua(String.self, "return 12") }
      == "state: expected string, got integer")
  }

  @Test func stringsAreBytesAndNonUTF8IsAnErrorForString() throws {
    struct Named: Codable { var name: String }
    #expect(conversionError { _ = try decodeLua(Named.self, #"return { name = "caf\xE9" }"#) }
      == "state.name: the string is not valid UTF-8")
    // The same bytes decode fine as Data, and as a LuaValue they stay bytes.
    struct Raw: Codable { var name: Data }
    #expect(try decodeLua(Raw.self, #"return { name = "caf\xE9" }"#).name == Data([99, 97, 102, 0xE9]))
    let vm = try LuaVM()
    let value = try vm.evaluate(#"return "caf\xE9""#)[0]
    #expect(value == .string(LuaString(bytes: [99, 97, 102, 0xE9])))
    #expect(value.stringValue == nil)
  }

  @Test func unicodeSurvives() throws {
    let text = "naïve café 🍕 ✓ \u{0}nul"
    #expect(try throughLua(text).decoded == text)
  }

  @Test func datesAreSecondsSince1970() throws {
    let date = Date(timeIntervalSince1970: 1_700_000_000.25)
    let (snapshot, decoded) = try throughLua(date)
    #expect(snapshot == .number(1_700_000_000.25))
    #expect(decoded == date)
    #expect(try decodeLua(Date.self, "return 86400") == Date(timeIntervalSince1970: 86400))
  }

  @Test func dataIsAStringOfItsBytes() throws {
    let data = Data([0, 1, 2, 0xFF])
    let (snapshot, decoded) = try throughLua(data)
    #expect(snapshot == .string(LuaString(bytes: [0, 1, 2, 0xFF])))
    #expect(decoded == data)
  }

  @Test func urlsAreTheirAbsoluteString() throws {
    let url = URL(string: "http://numbersapi.com/42?json")!
    let (snapshot, decoded) = try throughLua(url)
    #expect(snapshot == "http://numbersapi.com/42?json")
    #expect(decoded == url)
    #expect(conversionError { _ = try decodeLua(URL.self, "return ''") }
      == #"state: "" is not a URL"#)
  }

  @Test func uuidsAreTheirUppercaseString() throws {
    let uuid = UUID(uuidString: "DEADBEEF-0000-4000-8000-000000000001")!
    let (snapshot, decoded) = try throughLua(uuid)
    #expect(snapshot == "DEADBEEF-0000-4000-8000-000000000001")
    #expect(decoded == uuid)
    #expect(conversionError { _ = try decodeLua(UUID.self, "return 'nope'") }
      == #"state: "nope" is not a UUID"#)
  }
}

@Suite struct UTF8ValidationTests {
  @Test(arguments: [
    ([0x61, 0x62], true),
    ([0xC3, 0xA9], true),  // é
    ([0xE2, 0x9C, 0x93], true),  // ✓
    ([0xF0, 0x9F, 0x8D, 0x95], true),  // 🍕
    ([0xC3], false),  // truncated
    ([0xC0, 0xAF], false),  // overlong
    ([0xE0, 0x80, 0xAF], false),  // overlong
    ([0xED, 0xA0, 0x80], false),  // surrogate
    ([0xF4, 0x90, 0x80, 0x80], false),  // past U+10FFFF
    ([0xFF], false),
    ([0x61, 0x61, 0x61, 0x61, 0x61, 0x61, 0x61, 0x61, 0x61, 0xE9], false),  // after the fast path
  ] as [([UInt8], Bool)])
  func agreesWithTheStandardLibrary(bytes: [UInt8], valid: Bool) {
    let ours = bytes.withUnsafeBytes { UTF8Validation.isValid($0) }
    #expect(ours == valid)
    #expect(ours == (String(validating: bytes, as: UTF8.self) != nil))
  }

  @Test func agreesOnRandomBytes() {
    var generator = SplitMix64(seed: 7)
    for _ in 0..<20_000 {
      let bytes = (0..<Int.random(in: 0..<12, using: &generator)).map { _ in
        // Mostly bytes that make multibyte sequences, where the edge cases are.
        UInt8.random(in: 0x70...0xFF, using: &generator)
      }
      let ours = bytes.withUnsafeBytes { UTF8Validation.isValid($0) }
      #expect(ours == (String(validating: bytes, as: UTF8.self) != nil), "\(bytes)")
    }
  }
}
