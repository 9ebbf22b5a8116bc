import SeededRandom
import Testing

@testable import LuaKit

/// What a person reads of a value (`description`, `pretty`): Lua literals, a table reached twice
/// labelled once and referred to after (as inspect.lua does), every text capped with
/// `… N more bytes`, and strings quoted so that Lua reads back exactly their bytes.
@Suite struct LuaValuePrinterTests {
  @Test func aTableReachedTwiceIsLabelledOnceAndReferredToAfter() {
    let dag = LuaTableIdentityTests.dag(levels: 2)
    #expect(dag.description == #"{ <1>{ <2>{ "leaf" }, <2> }, <1> }"#)
    let leaf: LuaValue = ["x": 1]
    let map: LuaValue = ["a": leaf, "b": leaf, "c": ["x": 1]]
    #expect(map.description == "{ a = <1>{ x = 1 }, b = <1>, c = { x = 1 } }")
    let empty: LuaValue = [:]
    #expect(LuaValue.table(LuaTable(array: [empty, empty])).description == "{ <1>{}, <1> }")
  }

  /// 2^40 paths print as 41 tables, one line each way.
  @Test func aDagOf2To40PathsPrintsInItsDistinctTables() throws {
    let vm = try LuaVM()
    let dag = try vm.evaluate(LuaTableIdentityTests.dagSource)[0]
    let line = dag.description
    // Level k (40 the root) holds level k - 1 twice: labelled 40 - k + 1 below the root.
    func level(_ k: Int) -> String {
      let inner = k == 1 ? #"<40>{ "leaf" }, <40>"# : level(k - 1) + ", <\(41 - k)>"
      return k == 40 ? "{ \(inner) }" : "<\(40 - k)>{ \(inner) }"
    }
    #expect(line == level(40))
    let pretty = dag.pretty(width: 20)
    #expect(pretty.hasPrefix("{\n  <1>{\n    <2>{\n"))
    #expect(pretty.hasSuffix("  },\n  <1>,\n}"))
    #expect(pretty.utf8.count < 10_000)
    var written = ""
    try vm.writeDescription(of: try vm.reference(to: dag), to: &written)
    #expect(written == line)
  }

  @Test func prettyLaysOutLabelsAndIndents() {
    let leaf: LuaValue = ["name": "a shared table with a long enough name"]
    let value: LuaValue = ["first": leaf, "second": leaf, "list": [1, 2, 3]]
    #expect(
      value.pretty(width: 40) == """
        {
          first = <1>{
            name = "a shared table with a long enough name",
          },
          list = { 1, 2, 3 },
          second = <1>,
        }
        """)
  }

  /// 20 MB in a description: 2,048 bytes of it, then how many more there were.
  @Test func aHugeValueIsCutAtTheLimitWithHowMuchMore() {
    let huge = String(repeating: "x", count: 20_000_000)
    let action: LuaValue = ["data": .string(LuaString(huge))]
    let text = action.description
    let kept = #"{ data = ""# + String(repeating: "x", count: 2_048 - 10)
    // The whole would be `{ data = "` (10), the string, `" }` (3).
    #expect(text == kept + "… \(20_000_013 - 2_048) more bytes")
    #expect(LuaValue.descriptionLimit == 2_048)
    // `{`, a line `  data = "…",` and `}`: 20,000,016 bytes whole.
    let pretty = action.pretty(limit: 100)
    #expect(pretty.hasPrefix("{\n  data = \"xxx"))
    #expect(pretty.hasSuffix("x… \(20_000_016 - 100) more bytes"))
  }

  /// A cut never splits a character: what is kept is whole UTF-8.
  @Test func aCutKeepsWholeCharacters() {
    for prefix in 0..<4 {
      let value = LuaValue.string(
        LuaString(String(repeating: "a", count: prefix) + String(repeating: "é€😀", count: 400)))
      let text = value.description(limit: 64)
      let kept = text.components(separatedBy: "… ")[0]
      #expect(kept.utf8.count <= 64)
      #expect(kept.utf8.count >= 60)
      #expect(!kept.contains("\u{FFFD}"))
      #expect(text.hasSuffix(" more bytes"))
    }
  }

  /// Every byte, alone and in every context, quotes to Lua that reads back exactly that byte:
  /// byte 127 is `\127` (it was `\0127`, read back as `\012` and `7`).
  @Test func everyByteQuotesToLuaThatReadsItBack() throws {
    let vm = try LuaVM()
    #expect(LuaValue.string(LuaString(bytes: [127])).description == #""\127""#)
    #expect(LuaValue.string(LuaString(bytes: [127, 0x31])).description == #""\1271""#)
    #expect(LuaValue.string(LuaString(bytes: [0xC2, 0x9B])).description == #""\u{9B}""#)
    for byte in 0...255 {
      for context: [UInt8] in [[], [0x31], [0xC3, 0xA9], [0xFF]] {
        let bytes = [UInt8(byte)] + context + [UInt8(byte)]
        let value = LuaValue.string(LuaString(bytes: bytes))
        let read = try vm.evaluate("return " + value.description(limit: .max))
        #expect(read == [value], "byte \(byte) before \(context)")
      }
    }
  }

  @Test func randomByteStringsQuoteToLuaThatReadsThemBack() throws {
    let vm = try LuaVM()
    var random = SplitMix64(seed: 2027_01_27)
    for iteration in 0..<2_000 {
      let count = random.below(40)
      let utf8Only = iteration % 2 == 0
      var bytes: [UInt8] = []
      while bytes.count < count {
        if utf8Only {
          let scalar = UnicodeScalar(UInt32(random.below(0x1_0000))) ?? "x"
          bytes += Array(String(scalar).utf8)
        } else {
          bytes.append(UInt8(random.below(256)))
        }
      }
      let value = LuaValue.string(LuaString(bytes: bytes))
      let read = try vm.evaluate("return " + value.description(limit: .max))
      #expect(read == [value], "\(bytes)")
      if read != [value] { return }
    }
  }
}
