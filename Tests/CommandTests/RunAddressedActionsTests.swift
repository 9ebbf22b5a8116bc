import Foundation
import TestSupport
import Testing

/// `composable run` reads an address before an action (`path#1 toggle`, `sheet edit`) as the
/// REPL does, and says what is wrong with one that is none in the REPL's words: piped to `run`,
/// `path#1 toggle_read` was Lua's `syntax error: <eof> expected near '#'`, with no hint (a new
/// user's finding).
@Suite struct RunAddressedActionsTests {
  static let feature = """
    local composable = require("composable")
    local Screen = {}
    function Screen.reduce(state, action)
      if action.type == "toggle" then state.on = not state.on end
    end
    local App = {}
    function App.initial_state() return { path = composable.stack_state(), sheet = nil } end
    local function app(state, action)
      if action.type == "open" then
        composable.push(state.path, "item", { on = false })
      elseif action.type == "show" then
        state.sheet = { screen = "edit", state = { on = false } }
      end
    end
    App.reduce = composable.combine(
      app,
      composable.stack{ state = "path", action = "path", screens = { item = Screen } },
      composable.presents{ state = "sheet", action = "sheet", destinations = { edit = Screen } })
    return App
    """

  @Test func anAddressedActionGoesToItsScreen() throws {
    let directory = try makeTemporaryDirectory("run-address")
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("app.lua")
    try Self.feature.write(to: file, atomically: true, encoding: .utf8)
    let run = try Command.run(
      ["run", file.path, "--wait", "0", "--data", directory.appendingPathComponent("d").path],
      input: "open\npath#1 toggle\nshow\nsheet toggle\npath#1 { type = \"toggle\" }\n"
        + "path#x toggle\npat#1 toggle\npath#1\n")
    #expect(run.status == 2, "\(run.output)\n\(run.errors)")
    #expect(run.output.contains("+ path.screens[1].state.on = true"), "\(run.output)")
    #expect(run.output.contains("+ sheet.state.on = true"), "\(run.output)")
    #expect(run.output.contains("+ path.screens[1].state.on = false"), "\(run.output)")
    let errors = run.errors.split(separator: "\n").map(String.init)
    #expect(
      errors == [
        "error: line 6 of the input: path#x: a screen's id after # is an integer (:screens "
          + "lists them): path#1 <action>",
        "error: line 7 of the input: pat is no stack of this feature (its stacks: path); a "
          + "screen's address is its stack and id: path#1 <action>",
        "error: line 8 of the input: path#1 is an address: the action goes after it (path#1 "
          + "<action>)",
        "error: 3 lines were not actions; the other lines ran (exit status 2)",
      ], "\(run.errors)")
  }
}
