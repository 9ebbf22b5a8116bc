import ComposableLua
import LuaKit
import TestSupport
import Testing

/// A flat state (no table among its values) is read without a metamethod; once a table is
/// stored in it, reads hand out proxies again, so writes below the root stay transactional.
@Suite struct FlatStateTests {
  static let source = """
    return {
      initial_state = function() return { count = 0 } end,
      reduce = function(state, action)
        if action.type == "increment" then
          state.count = state.count + 1
        elseif action.type == "nest" then
          state.child = { x = 1 }
        elseif action.type == "edit_child_and_fail" then
          state.child.x = 2
          state.count = 100
          error("no")
        elseif action.type == "many" then
          for i = 1, 40 do state["f" .. i] = i end
        elseif action.type == "nil_key" then
          state.count = 7
          state[action.missing] = 1
        elseif action.type == "many_and_fail" then
          for i = 1, 40 do state["f" .. i] = -i end
          state.count = -1
          error("no")
        end
      end,
    }
    """

  private func send(_ feature: LuaFeature, _ action: LuaValue) throws {
    _ = try feature.step(action)
  }

  private func sendFailing(_ feature: LuaFeature, _ action: LuaValue) {
    #expect(throws: LuaFeatureError.self) { try send(feature, action) }
  }

  @Test func aFlatStateCounts() throws {
    let feature = try LuaFeature(source: Self.source, file: "flat.lua")
    for _ in 1...3 { try send(feature, "increment") }
    #expect(try feature.state() == ["count": 3])
  }

  @Test func aTableStoredInAFlatStateIsStillRolledBack() throws {
    let feature = try LuaFeature(source: Self.source, file: "flat.lua")
    try send(feature, "nest")
    sendFailing(feature, "edit_child_and_fail")
    #expect(try feature.state() == ["count": 0, "child": ["x": 1]])
  }

  struct Nested: Encodable {
    var count: Int
    var child: [String: Int]
  }

  @Test func aTablePutInByTheHostIsStillRolledBack() throws {
    let feature = try LuaFeature(source: Self.source, file: "flat.lua")
    try send(feature, "increment")
    try feature.replaceState(with: Nested(count: 5, child: ["x": 1]))
    sendFailing(feature, "edit_child_and_fail")
    #expect(try feature.state() == ["count": 5, "child": ["x": 1]])
  }

  @Test func aLongJournalIsRolledBackAfterALongerOneCommitted() throws {
    let feature = try LuaFeature(source: Self.source, file: "flat.lua")
    try send(feature, "many")
    sendFailing(feature, "many_and_fail")
    var expected: LuaValue = ["count": 0]
    for i in 1...40 { expected[.string(LuaString("f\(i)"))] = .integer(i) }
    #expect(try feature.state() == expected)
  }

  @Test func aNilKeyIsAnErrorAndRollsBack() throws {
    let feature = try LuaFeature(source: Self.source, file: "flat.lua")
    let error = featureError { try send(feature, "nil_key") }
    guard case let .reduce(_, .runtime(message, _)) = error else {
      Issue.record("expected a runtime error, got \(String(describing: error))")
      return
    }
    #expect(message == "flat.lua:16: table index is nil")  // Lua's own words
    #expect(try feature.state() == ["count": 0])
  }
}
