import ComposableLua
import LuaKit
import Testing

/// A state table keeps the proxy a reducer reached it through under a key of its own (a light
/// userdata, which Lua code cannot make). No reader may see that key.
@Suite struct ProxyKeyTests {
  static let source = """
    return {
      initial_state = function()
        return { scores = { ann = 1, bob = 2 }, list = { 10, 20 }, nested = { deep = { x = 1 } } }
      end,
      reduce = function(state, action)
        if action.type == "touch" then
          -- Reaching each table gives it its proxy.
          local _ = state.scores.ann, state.list[1], state.nested.deep.x
        elseif action.type == "count_keys" then
          local n = 0
          for _ in pairs(state.scores) do n = n + 1 end
          for _ in pairs(state.nested) do n = n + 1 end
          for _ in pairs(state) do n = n + 1 end
          state.keys = n
        elseif action.type == "same" then
          state.same = state.nested.deep == state.nested.deep
        end
      end,
    }
    """

  static let initial: LuaValue = [
    "scores": ["ann": 1, "bob": 2], "list": [10, 20], "nested": ["deep": ["x": 1]],
  ]

  private func send(_ feature: LuaFeature, _ action: LuaValue) throws {
    _ = try feature.step(action)
  }

  @Test func snapshotsOfTouchedTablesHoldOnlyTheirFields() throws {
    let feature = try LuaFeature(source: Self.source, file: "proxy.lua")
    try send(feature, "touch")
    #expect(try feature.state() == Self.initial)
  }

  @Test func pairsInAReducerSeesOnlyTheFields() throws {
    let feature = try LuaFeature(source: Self.source, file: "proxy.lua")
    try send(feature, "touch")
    try send(feature, "count_keys")
    // scores: 2, nested: 1, state: scores, list, nested (keys is written after counting).
    #expect(try feature.state().keys == 6)
  }

  @Test func aTableKeepsOneProxy() throws {
    let feature = try LuaFeature(source: Self.source, file: "proxy.lua")
    try send(feature, "same")
    #expect(try feature.state().same == true)
  }

  struct State: Codable, Equatable {
    var scores: [String: Int]
    var list: [Int]
    var nested: [String: [String: Int]]
  }

  @Test func theDecoderSeesOnlyTheFields() throws {
    let feature = try LuaFeature(source: Self.source, file: "proxy.lua")
    try send(feature, "touch")
    #expect(try feature.decodeState(State.self) == State(
      scores: ["ann": 1, "bob": 2], list: [10, 20], nested: ["deep": ["x": 1]]))
  }

  @Test func replacingTheStateAfterATouchKeepsTheReducerWorking() throws {
    let feature = try LuaFeature(source: Self.source, file: "proxy.lua")
    try send(feature, "touch")
    try feature.replaceState(with: State(scores: ["cy": 3], list: [1], nested: [:]))
    try send(feature, "count_keys")
    // scores: 1, nested: 0, state: scores, list, nested.
    #expect(try feature.state() == [
      "scores": ["cy": 3], "list": [1], "nested": [:], "keys": 4,
    ])
  }
}
