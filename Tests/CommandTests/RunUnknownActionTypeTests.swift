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

    // Types named in a file beside it that it never requires (another feature's): not its.
    let sub = directory.appendingPathComponent("sub")
    try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
    try "return function(state, action) if action.type == 'zzz' then end end".write(
      to: sub.appendingPathComponent("child.lua"), atomically: true, encoding: .utf8)
    let beside = try Command.run(["run", feature.path, "--wait", "0"], input: "zzz\n")
    #expect(beside.output.contains(#"names no action type "zzz""#), "\(beside.output)")

    // Types named in a module it requires, in a folder below: found.
    try """
      local child = require("sub.child")
      return {
        initial_state = function() return { read = false } end,
        reduce = function(state, action) child(state, action) end,
      }
      """.write(to: feature, atomically: true, encoding: .utf8)
    let below = try Command.run(["run", feature.path, "--wait", "0"], input: "zzz\nzz\n")
    #expect(below.output.contains("  \"zzz\"\n  (No state changes)\n"), "\(below.output)")
    #expect(
      below.output.contains(
        #"  (No state changes: the feature names no action type "zz" (did you mean zzz?))"#),
      "\(below.output)")

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

  /// A wrapped action is looked at level by level, from the outside: a misspelt parent type
  /// (`bok` for `book`) around a child action the feature names was said of the child's type
  /// only, or not at all.
  @Test func eachLevelOfAWrappedActionIsLookedAt() throws {
    let directory = try makeTemporaryDirectory("unknown-wrapped-type")
    defer { try? FileManager.default.removeItem(at: directory) }
    let feature = directory.appendingPathComponent("shelf.lua")
    try """
      return {
        initial_state = function() return { read = false } end,
        reduce = function(state, action)
          if action.type == "book" and action.action.type == "export" then end
          if action.type == "book" and action.action == "toggle" then state.read = true end
        end,
      }
      """.write(to: feature, atomically: true, encoding: .utf8)
    let run = try Command.run(
      ["run", feature.path, "--wait", "0"],
      input: """
        { type = "bok", action = { type = "export" } }
        { type = "bok", action = "zzz" }
        { type = "book", action = "exprt" }
        { type = "book", action = { type = "export" } }

        """)
    #expect(run.status == 0, "\(run.errors)")
    let notes = run.output.split(separator: "\n").filter { $0.contains("(No state changes") }
    #expect(
      notes == [
        #"  (No state changes: the feature names no action type "bok" (did you mean book?))"#,
        #"  (No state changes: the feature names no action type "bok" (did you mean book?))"#,
        #"  (No state changes: the feature names no action type "exprt" (did you mean export?))"#,
        "  (No state changes)",
      ], "\(run.output)")
  }
}
