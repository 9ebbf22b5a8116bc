import Composable
import ComposableLua
import LuaKit
import Testing

/// Under a Swift parent, a Lua child's state shows in Lua in a failing test's diff (1-based,
/// `items[1]`, not custom-dump's `[0]:`), and a Lua error is reported at the test's line, not
/// inside the runtime.
@Suite struct LuaChildUnderSwiftMessagesTests {
  typealias Parent = CrossLanguageTests.Parent
  typealias ParentAction = CrossLanguageTests.ParentAction

  static let source = """
    return {
      initial_state = function() return { items = { "a" } } end,
      reduce = function(state, action)
        if action.type == "add" then table.insert(state.items, action.item) end
        if action.type == "boom" then error("no booms here") end
      end,
    }
    """

  func store() throws -> TestStore<Parent, ParentAction> {
    let feature = try LuaFeature(source: Self.source, file: "items.lua")
    return try CrossLanguageTests.parentStore(feature) { _, _ in .none }
  }

  @Test func aWrongExpectationShowsTheLuaChildInLua() async throws {
    let store = try store()
    await withKnownIssue {
      await store.send(.counter(["type": "add", "item": "b"])) {
        $0.counter.items = ["a", "c"]
      }
    } matching: { issue in
      let text = issue.comments.map(\.rawValue).joined() + "\(issue)"
      return text.contains(#""b""#) && text.contains(#""c""#) && !text.contains("[0]")
        && text.contains("items = {")
    }
  }

  @Test func aLuaErrorIsReportedAtTheTestsLine() async throws {
    let store = try store()
    let line = #line + 2
    await withKnownIssue {
      await store.send(.counter("boom"))
    } matching: { issue in
      issue.sourceLocation?.fileName == "LuaChildUnderSwiftMessagesTests.swift"
        && issue.sourceLocation?.line == line
        && "\(issue)".contains("no booms here")
    }
  }
}
