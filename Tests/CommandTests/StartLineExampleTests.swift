import Foundation
import TestSupport
import Testing

/// The first lines of `run` and `repl` give as their example a type the feature names, not
/// `increment` whatever the feature (a new user's shopping list was told to type `increment`).
@Suite struct StartLineExampleTests {
  static let feature = """
    local Shop = {}
    Shop.actions = { "add_item", "remove_item" }
    function Shop.initial_state() return { items = {} } end
    function Shop.reduce(state, action)
      if action.type == "remove_item" then table.remove(state.items) end
      if action.type == "add_item" then table.insert(state.items, action.name or "?") end
    end
    return Shop
    """

  func firstLines(_ command: String, source: String = feature) throws -> String {
    let directory = try makeTemporaryDirectory("start-line")
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("shop.lua")
    try source.write(to: file, atomically: true, encoding: .utf8)
    let outcome = try Command.run(
      [command, file.path, "--data", directory.appendingPathComponent("data").path], input: "")
    return outcome.output
  }

  @Test func runGivesTheFirstTypeTheFeatureNames() throws {
    #expect(
      try firstLines("run").contains(
        #"Type actions, one per line: a word (add_item) or a table ({ type = "add", n = 1 })."#))
  }

  @Test func replGivesItToo() throws {
    #expect(
      try firstLines("repl").contains(
        "Type an action (add_item, or a table), = expression, or :help. Saving the file reloads it."))
  }

  /// A feature that names no type keeps the generic example.
  @Test func aFeatureThatNamesNoneGetsIncrement() throws {
    let source = """
      return { initial_state = function() return { n = 0 } end, reduce = function() end }
      """
    #expect(try firstLines("run", source: source).contains("a word (increment)"))
  }
}
