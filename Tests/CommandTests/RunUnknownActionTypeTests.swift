import Foundation
import TestSupport
import Testing

/// `composable run` with an action of a type the feature names nowhere, which changed nothing:
/// said, as the REPL says it (`toggle` piped for `toggle_read` went by as "(No state
/// changes)": a new user's finding).
@Suite struct RunUnknownActionTypeTests {
  @Test func anActionOfATypeNamedNowhereIsSaid() throws {
    let directory = try makeTemporaryDirectory("unknown-type")
    defer { try? FileManager.default.removeItem(at: directory) }
    let feature = directory.appendingPathComponent("marks.lua")
    try """
      return {
        initial_state = function() return { read = false } end,
        reduce = function(state, action)
          if action.type == "toggle_read" then state.read = not state.read end
          if action.type == "noop" then end
        end,
      }
      """.write(to: feature, atomically: true, encoding: .utf8)
    let run = try Command.run(
      ["run", feature.path, "--wait", "0"],
      input: "toggle\n{ type = \"toggle_red\" }\nzzz\nnoop\n{ type = \"toggle_read\" }\n")
    #expect(run.status == 0, "\(run.errors)")
    let notes = run.output.split(separator: "\n").filter { $0.contains("(No state changes") }
    #expect(
      notes == [
        #"  (No state changes: the feature names no action type "toggle" (did you mean toggle_read?))"#,
        #"  (No state changes: the feature names no action type "toggle_red" (did you mean toggle_read?))"#,
        #"  (No state changes: the feature names no action type "zzz" (it names noop, toggle_read))"#,
        "  (No state changes)",  // noop: named
      ], "\(run.output)")

    // Types named in a module in a folder below: found.
    let sub = directory.appendingPathComponent("sub")
    try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
    try "return function(state, action) if action.type == 'zzz' then end end".write(
      to: sub.appendingPathComponent("child.lua"), atomically: true, encoding: .utf8)
    let below = try Command.run(["run", feature.path, "--wait", "0"], input: "zzz\n")
    #expect(below.output.contains("  (No state changes)\n"), "\(below.output)")

    // A feature whose files name no type (a table of handlers): nothing to go by, nothing said.
    try """
      local handlers = { toggle_read = function(state) state.read = not state.read end }
      return {
        initial_state = function() return { read = false } end,
        reduce = function(state, action)
          local handler = handlers[action.type]
          if handler then handler(state) end
        end,
      }
      """.write(to: feature, atomically: true, encoding: .utf8)
    let table = try Command.run(["run", feature.path, "--wait", "0"], input: "toggle\n")
    #expect(table.output.contains("  (No state changes)\n"), "\(table.output)")
  }
}
