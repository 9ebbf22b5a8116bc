import Composable
import CustomDump
import ComposableLua
import LuaKit
import TestSupport
import Testing

/// Values a state can hold that IEEE or table identity would make compare strangely.
@Suite struct StateValueTests {
  @Test func aStateHoldingNaNComparesEqualToItselfSoAssertionsWork() async throws {
    let store = try testStore("""
      return {
        initial_state = function() return { ratio = 0/0, count = 0 } end,
        reduce = function(state, action) state.count = state.count + 1 end,
      }
      """)
    await store.send("count") { $0.count = 1 }  // NaN unchanged: no difference to report
    #expect(LuaValue.number(.nan) == .number(.nan))
    // NaNs of the two signs are two values (`tostring` prints `nan` and `-nan`).
    #expect(Set([LuaValue.number(.nan), .number(-.nan), .number(.nan)]).count == 2)
    #expect(LuaValue.integer(1) != .number(1))
  }

  @Test func aTableCannotBeAStateKeyWhereverItComesFrom() throws {
    let feature = try LuaFeature(source: """
      return {
        initial_state = function() return { n = 0 } end,
        reduce = function(state, action)
          if action.type == "direct" then state[{}] = 1
          elseif action.type == "inside" then state.set = { [{}] = true, [{}] = true }
          else state.n = state.n + 1 end
        end,
      }
      """, file: "keys.lua")
    for (action, line) in [("direct", 4), ("inside", 5)] {
      let error = featureError {
        _ = try feature.step(.string(LuaString(action)))
      }
      guard case let .reduce(_, failure) = error else {
        Issue.record("expected \(action) to fail, got \(String(describing: error))")
        continue
      }
      #expect(failure.message == """
        keys.lua:\(line): a table cannot be a state key (keys are strings, numbers and booleans)
        """)
    }
    #expect(try feature.state() == ["n": 0])
    // A snapshot of other Lua data with table keys is an error too, not two keys made one.
    let vm = try LuaVM()
    #expect {
      try vm.evaluate("return { [{}] = 1, [{}] = 2 }")
    } throws: { error in
      (error as? LuaError)?.description
        == "result #1: a table key cannot be read (keys are strings, numbers, booleans)"
    }
  }

  /// A value built in Swift deeper than Lua could give still prints and diffs: the walk stops
  /// at `LuaValue.maximumDepth`, as every other walk over Lua data does.
  @Test func aValueDeeperThanTheLimitPrintsAndDiffsWithAMarker() {
    var deep: LuaValue = 1
    for _ in 0..<300 { deep = ["x": deep] }
    let marker = "nested more than 200 levels deep"
    #expect(deep.description.contains("{ --[[ \(marker) ]] }"))
    #expect(String(customDumping: deep).contains("{ --[[ \(marker) ]] }"))
    var other = deep
    other["y"] = 2
    // In Lua, as custom-dump shows a Lua value (LuaValue+Notation.swift), cut where a printed
    // value is cut (LuaValue.prettyLimit): both sides, each marked.
    let difference = diff(deep, other) ?? ""
    let lines = difference.split(separator: "\n")
    #expect(lines.first == "- {" && lines.contains("+ {"), "\(lines.prefix(3))")
    #expect(difference.contains("more bytes"))
  }
}
