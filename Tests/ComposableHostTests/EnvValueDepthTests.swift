import ComposableHost
import ComposableLua
import LuaKit
import Testing

/// An `--env` value goes into `env`, a table itself: the deepest table it reads is one level
/// less deep than any value, so that what it reads loads (a value 200 deep was read as a table,
/// then failed the load, where 201 was text).
@Suite struct EnvValueDepthTests {
  static func nested(_ depth: Int) -> String {
    String(repeating: "{", count: depth) + String(repeating: "}", count: depth)
  }

  @Test func theDeepestTableReadLoadsAndOneDeeperIsText() throws {
    let reader = LuaLiteralReader()
    let deepest = reader.envValue(from: Self.nested(LuaValue.maximumDepth - 1))
    #expect(deepest.tableValue != nil)
    let feature = try LuaFeature(
      source: "return { initial_state = function() return {} end, reduce = function() end }",
      file: "f.lua", env: ["deep": deepest])
    #expect(try feature.state() == [:])
    let deeper = Self.nested(LuaValue.maximumDepth)
    #expect(reader.envValue(from: deeper) == .string(LuaString(deeper)))
  }
}
