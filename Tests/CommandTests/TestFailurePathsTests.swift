import Foundation
import TestSupport
import Testing

/// `composable test` names each file in a failure by its path, as the person can open it (or
/// jump to `file:line`): relative to the folder it runs in when the file is under it, else
/// absolute. A bare `kanban_test.lua` could be any feature's.
@Suite struct TestFailurePathsTests {
  static let feature = """
    local board = require("board")
    return {
      initial_state = function() return { cards = 0 } end,
      reduce = function(state, action)
        if action.type == "add" then
          state.cards = state.cards + 1
        elseif action.type == "drop" then
          error("no such card")
        elseif action.type == "move" then
          board.move(action.to)
        end
      end,
    }
    """

  /// A module the feature requires, which raises.
  static let board = """
    local board = {}
    function board.move(column)
      error("no column " .. column)
    end
    return board
    """

  static let test = """
    local TestStore = require("composable.test").TestStore

    describe("kanban", function()
      it("adds a card", function()
        local store = TestStore.new{ feature = "kanban" }
        store:send("add", function(s) s.cards = 2 end)
      end)

      it("drops a card", function()
        local store = TestStore.new{ feature = "kanban" }
        store:send("drop")
      end)

      it("moves a card", function()
        local store = TestStore.new{ feature = "kanban" }
        store:send({ type = "move", to = "done" })
      end)
    end)
    """

  /// A folder holding `features/kanban/`: the feature, its module and its test.
  static func project() throws -> URL {
    let root = try makeTemporaryDirectory("test-paths")
    let folder = root.appendingPathComponent("features/kanban")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    for (name, text) in [("kanban.lua", feature), ("board.lua", board), ("kanban_test.lua", test)] {
      try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }
    return root
  }

  /// The readable report with the folder named `folder`.
  static func report(_ folder: String) -> String {
    """
    ✗ kanban adds a card
        \(folder)/kanban_test.lua:6: A state change does not match expectation.
        
        − cards = 2
        + cards = 1
        
        (Expected: −, Actual: +)
    ✗ kanban drops a card
        \(folder)/kanban_test.lua:11: the reducer failed on { type = "drop" }, and the state \
    was rolled back: \(folder)/kanban.lua:8: no such card
        stack traceback:
        \t\(folder)/kanban.lua:8: in function <\(folder)/kanban.lua:4>
    ✗ kanban moves a card
        \(folder)/kanban_test.lua:16: the reducer failed on { to = "done", type = "move" }, and \
    the state was rolled back: \(folder)/board.lua:3: no column done
        stack traceback:
        \t\(folder)/board.lua:3: in field 'move'
        \t\(folder)/kanban.lua:10: in function <\(folder)/kanban.lua:4>
    0 passed, 3 failed

    """
  }

  /// A failed expectation, an error the feature raises and one its module raises, each named by
  /// the path from the folder the command runs in.
  @Test func aRelativePathNamesTheFilesFromTheCurrentFolder() throws {
    let root = try Self.project()
    defer { try? FileManager.default.removeItem(at: root) }
    let outcome = try Command.run(["test", "features/kanban"], in: root)
    #expect(outcome.status == 1)
    #expect(outcome.output == Self.report("features/kanban"))
    // The folder it runs in is not named: the relative path is enough.
    #expect(!outcome.output.contains(root.path))
  }

  /// Run from a folder the files are not under, the report names them by their absolute paths,
  /// whole: Lua cuts a chunk name longer than 59 bytes to "...its end" in its own messages.
  @Test func anAbsolutePathOutsideTheCurrentFolderNamesTheFilesWhole() throws {
    let root = try Self.project()
    let elsewhere = try makeTemporaryDirectory("test-paths-elsewhere")
    defer {
      try? FileManager.default.removeItem(at: root)
      try? FileManager.default.removeItem(at: elsewhere)
    }
    let folder = root.appendingPathComponent("features/kanban").path
    #expect(folder.utf8.count + "/kanban_test.lua".utf8.count > 59)
    let outcome = try Command.run(["test", folder], in: elsewhere)
    #expect(outcome.status == 1)
    #expect(outcome.output == Self.report(folder))
    #expect(!outcome.output.contains("..."))
    // From the project's folder, the absolute path given is named relative to it.
    let inside = try Command.run(["test", folder], in: root)
    #expect(inside.output == Self.report("features/kanban"))
  }

  @Test func tapNamesTheFilesByTheirPaths() throws {
    let root = try Self.project()
    defer { try? FileManager.default.removeItem(at: root) }
    let outcome = try Command.run(
      ["test", "features/kanban", "--filter", "card", "--output", "tap"], in: root)
    #expect(outcome.status == 1)
    #expect(outcome.output == """
      TAP version 13
      1..3
      not ok 1 - kanban adds a card
        ---
        message: |
          features/kanban/kanban_test.lua:6: A state change does not match expectation.
          
          − cards = 2
          + cards = 1
          
          (Expected: −, Actual: +)
        ...
      not ok 2 - kanban drops a card
        ---
        message: |
          features/kanban/kanban_test.lua:11: the reducer failed on { type = "drop" }, and the \
      state was rolled back: features/kanban/kanban.lua:8: no such card
          stack traceback:
          \tfeatures/kanban/kanban.lua:8: in function <features/kanban/kanban.lua:4>
        ...
      not ok 3 - kanban moves a card
        ---
        message: |
          features/kanban/kanban_test.lua:16: the reducer failed on { to = "done", type = \
      "move" }, and the state was rolled back: features/kanban/board.lua:3: no column done
          stack traceback:
          \tfeatures/kanban/board.lua:3: in field 'move'
          \tfeatures/kanban/kanban.lua:10: in function <features/kanban/kanban.lua:4>
        ...
      # 0 passed, 3 failed

      """)
  }
}
