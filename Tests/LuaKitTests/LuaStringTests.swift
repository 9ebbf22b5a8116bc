import LuaKit
import Testing

/// A `LuaString` keeps up to 15 bytes inline and longer ones in an array. Which form a string
/// takes must never show: equal bytes are equal and hash alike however the string was made,
/// order is by bytes, and every byte (NUL, 0xFF, CR/LF) survives both forms and the trip
/// through Lua.
@Suite struct LuaStringTests {
  /// Strings of 0 to 40 bytes, over the inline limit, with NUL, CR, LF and 0xFF at the ends.
  static let samples: [[UInt8]] = (0...40).flatMap { count -> [[UInt8]] in
    let plain = (0..<count).map { UInt8(0x61 + $0 % 26) }
    let awkward = (0..<count).map { [0x00, 0x0D, 0x0A, 0xFF][$0 % 4] as UInt8 }
    return [plain, awkward]
  }

  @Test func theFormNeverShows() {
    for bytes in Self.samples {
      let made = [
        LuaString(bytes: bytes),
        bytes.withUnsafeBytes { LuaString(copying: $0) },
        {
          var string = LuaString("x"); string.bytes = bytes; return string
        }(),
        {
          var string = LuaString(bytes: Array(repeating: 7, count: 30)); string.bytes = bytes;
          return string
        }(),
      ]
      for string in made {
        #expect(string == made[0])
        #expect(string.hashValue == made[0].hashValue)
        #expect(string.bytes == bytes)
        #expect(string.count == bytes.count)
        #expect(string.withUnsafeBytes { Array($0) } == bytes)
      }
      if let text = String(validating: bytes, as: UTF8.self) {
        #expect(LuaString(text) == made[0])
        #expect(LuaString(text).string == text)
      }
    }
    // A NUL at the end is a byte, not padding.
    #expect(LuaString(bytes: [0x61]) != LuaString(bytes: [0x61, 0]))
    #expect(LuaString(bytes: []) != LuaString(bytes: [0]))
    #expect(Set(Self.samples.map(LuaString.init(bytes:))).count == Set(Self.samples).count)
  }

  @Test func orderIsByBytes() {
    let strings = Self.samples.map(LuaString.init(bytes:))
    for left in strings {
      for right in strings {
        #expect((left < right) == left.bytes.lexicographicallyPrecedes(right.bytes))
      }
    }
  }

  @Test func everyByteGoesThroughLuaAndBack() throws {
    let vm = try LuaVM()
    let echo = try vm.load("local s = ... return #s, s", chunkName: "echo")
    for bytes in Self.samples {
      let value = LuaValue.string(LuaString(bytes: bytes))
      let length = try vm.call(echo, value)
      #expect(length == [.integer(bytes.count), value])
    }
  }

  /// The tag's name is compared with each key as an action is pushed: a name that fits inline
  /// is matched by its words, a longer one is looked up in Lua. Both must find the tag, and a
  /// key one byte off must not pass for it.
  @Test(arguments: [4, 15, 16, 41])
  func aTagOfAnyLengthIsFoundAndNoOtherKeyPassesForIt(length: Int) throws {
    let vm = try LuaVM()
    let name = String(repeating: "k", count: length - 1) + "t"
    let table = try vm.reference(to: [:])
    let proxy = try vm.transactionalProxy(of: table)
    let reduce = try vm.load(
      "local state, argument = ... state.seen = argument['\(name)']", chunkName: "r")
    let tag = try vm.reference(to: .string(LuaString(name)))  // kept alive, as the call needs
    let call = try LuaTransactionCall(
      function: reduce, state: proxy, context: table, tag: tag, in: vm)
    _ = try vm.callTransaction(call, argument: [.string(LuaString(name)): "go"])
    vm.commitTransaction()
    #expect(try vm.value(of: table) == ["seen": "go"])
    let near = String(name.dropLast()) + "u"
    #expect(throws: LuaError.self) {
      _ = try vm.callTransaction(call, argument: [.string(LuaString(near)): "stop"])
    }
    // Under the tag, a value that is not a string is refused too.
    #expect(throws: LuaError.self) {
      _ = try vm.callTransaction(call, argument: [.string(LuaString(name)): 1])
    }
    #expect(try vm.value(of: table) == ["seen": "go"])
    withExtendedLifetime(tag) {}
  }
}
