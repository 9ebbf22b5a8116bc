import ComposableLua
import LuaKit
import TestSupport
import Testing

@Suite struct HotSwapTests {
  static let version1 = """
    return {
      initial_state = function() return { count = 0 } end,
      reduce = function(state, action) if action.type == "bump" then state.count = state.count + 1 end end,
    }
    """

  static let version2 = """
    return {
      reduce = function(state, action) if action.type == "bump" then state.count = state.count + 10 end end,
      migrate = function(state) state.version = 2 end,
    }
    """

  func bump(_ feature: LuaFeature) throws {
    _ = try feature.step("bump")
  }

  @Test func swappingKeepsTheStateAndRunsMigrate() throws {
    let feature = try LuaFeature(source: Self.version1, file: "counter.lua")
    try bump(feature)
    try feature.swap(toSource: Self.version2)
    #expect(try feature.state() == ["count": 1, "version": 2])
    try bump(feature)
    #expect(try feature.state() == ["count": 11, "version": 2])
  }

  @Test func aBrokenSwapKeepsTheOldReducer() throws {
    let feature = try LuaFeature(source: Self.version1, file: "counter.lua")
    let error = featureError { try feature.swap(toSource: "return { reduce = ", file: "counter.lua") }
    #expect(error == .load(file: "counter.lua", message: "syntax error: counter.lua:1: unexpected symbol near <eof>"))
    try bump(feature)
    #expect(try feature.state() == ["count": 1])
  }

  @Test func aFailingMigrateKeepsTheOldReducerAndTheState() throws {
    let feature = try LuaFeature(source: Self.version1, file: "counter.lua")
    try bump(feature)
    let broken = "return { reduce = function() end, migrate = function(state) state.count = 500 error('no') end }"
    let error = featureError { try feature.swap(toSource: broken, file: "next.lua") }
    guard case let .load(file, message) = error else { Issue.record("expected a load error"); return }
    #expect(file == "next.lua")
    #expect(message.hasPrefix("migrate(state) failed: next.lua:1: no"))
    #expect(try feature.state() == ["count": 1])
    try bump(feature)
    #expect(try feature.state() == ["count": 2])
  }
}
