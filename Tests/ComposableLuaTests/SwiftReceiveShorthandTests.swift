import Composable
import ComposableLua
import LuaKit
import Testing

/// One meaning of receive: a bare type matches by type in Swift as in Lua, at any depth under a
/// Swift parent; a nested shorthand reads as its table; and with exhaustivity off, a receive
/// that finds only other actions says what came.
@Suite struct SwiftReceiveShorthandTests {
  typealias Parent = CrossLanguageTests.Parent
  typealias ParentAction = CrossLanguageTests.ParentAction

  static let source = """
    local effect = require("composable.effect")
    return {
      initial_state = function() return { sorted = 0 } end,
      reduce = function(state, action)
        if action.type == "add" then return effect.send({ type = "sort", by = "title" }) end
        if action.type == "sort" then state.sorted = state.sorted + 1 end
        if action.type == "wrap" then
          return effect.send({ type = "row", id = 1, action = { type = "tick" } })
        end
      end,
    }
    """

  func parentStore() throws -> TestStore<Parent, ParentAction> {
    let feature = try LuaFeature(source: Self.source, file: "list.lua")
    return try CrossLanguageTests.parentStore(feature) { _, _ in .none }
  }

  @Test func aBareTypeMatchesByTypeUnderASwiftParent() async throws {
    let store = try parentStore()
    await store.send(.counter("add"))
    await store.receive(.counter("sort")) { $0.counter.sorted = 1 }
  }

  @Test func aBareTypeMatchesByTypeWithALuaValueAction() async throws {
    let feature = try LuaFeature(source: Self.source, file: "list.lua")
    let store = TestStore(
      initialState: try feature.state(),
      reducer: { LuaFeatureReducer<LuaValue>(feature: feature, dependencies: $0) })
    await store.send("add")
    await store.receive("sort") { $0.sorted = 1 }
  }

  @Test func aNestedShorthandMatchesItsTable() async throws {
    let store = try parentStore()
    await store.send(.counter("wrap"))
    await store.receive(.counter(["type": "row", "id": 1, "action": "tick"]))
  }

  @Test func anotherTypeStillDoesNot() async throws {
    let store = try parentStore()
    await store.send(.counter("add"))
    await withKnownIssue {
      await store.receive(.counter("sorted"))
    }
    await store.skipReceivedActions()
  }

  /// Exhaustivity off: the message names what came instead of saying nothing came.
  @Test func withExhaustivityOffTheMessageSaysWhatCame() async throws {
    let store = try parentStore()
    store.exhaustivity = .off
    await store.send(.counter("add"))
    await withKnownIssue {
      await store.receive(.counter("sorted"))
    } matching: { issue in
      let text = "\(issue)"
      return text.contains("but none of the 1 action received matches")
        && text.contains(#"by = "title""#) && !text.contains("received none")
    }
  }
}
