import ComposableLua
import Foundation
import TestSupport
import Testing

/// A `for_each` or an `if_let` inside the elements of another keeps its bookkeeping per
/// element, and the cancels it asks for once the action is done are scoped as its children's
/// effects are: a subtask removed, or an editor closed, by its todo's own reducer ends its
/// timer and no other todo's, whatever the order of the todo's reducers.
@Suite struct NestedCompositionTests {
  static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("fixtures/nested-composition")

  @Test(arguments: [
    "composable.combine(parent, children[1], children[2])",
    "composable.combine(children[1], children[2], parent)",
  ])
  func childrenOfChildrenEndWithThem(_ order: String) async throws {
    let directory = try makeTemporaryDirectory("nested-composition")
    defer { try? FileManager.default.removeItem(at: directory) }
    let source = try String(
      contentsOf: Self.fixtures.appendingPathComponent("todos.lua"), encoding: .utf8)
    let ordered = source.replacingOccurrences(
      of: "local Todo = composable.combine(parent, children[1], children[2])",
      with: "local Todo = \(order)")
    #expect(ordered != source || order.hasPrefix("composable.combine(parent"))
    try ordered.write(
      to: directory.appendingPathComponent("todos.lua"), atomically: true, encoding: .utf8)
    let tests = try String(
      contentsOf: Self.fixtures.appendingPathComponent("todos_test.lua"), encoding: .utf8)
    let results = await LuaTestRunner().run(
      source: tests, name: "todos_test.lua", directory: directory)
    #expect(results.count == 3)
    for result in results {
      #expect(result.outcome == .passed, "\(result.name): \(result.outcome)")
    }
  }
}
