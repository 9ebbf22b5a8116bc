import Foundation
import TestSupport
import Testing

/// `--uuid incrementing` made the same UUIDs in every run, so a run that restored its state
/// gave a new todo an old one's id (a new user's finding). It counts on from the largest the
/// state at start holds, wherever it holds it, and says so.
@Suite struct RunIncrementingUUIDsTests {
  static let feature = """
    local composable = require("composable")
    return {
      initial_state = function() return { todos = {}, by_id = {} } end,
      reduce = function(state, action, env)
        if action.type == "add" then
          local id = env.uuid()
          table.insert(state.todos, { id = id })
          state.by_id[string.lower(id)] = { deep = { { id } } }
        end
      end,
      persist = composable.persist{ path = "todos.saved.lua", debounce = 0 },
    }
    """

  @Test func aRestoredStatesUUIDsAreNotMadeAgain() throws {
    let directory = try makeTemporaryDirectory("uuids")
    defer { try? FileManager.default.removeItem(at: directory) }
    let feature = directory.appendingPathComponent("todos.lua")
    try Self.feature.write(to: feature, atomically: true, encoding: .utf8)
    let data = directory.appendingPathComponent("data").path
    func run(_ adds: Int) throws -> Command.Outcome {
      try Command.run(
        ["run", feature.path, "--uuid", "incrementing", "--data", data, "--wait", "0"],
        input: String(repeating: "add\n", count: adds))
    }
    let first = try run(2)
    #expect(first.status == 0 && first.errors == "", "\(first.errors)")
    let second = try run(1)
    #expect(second.status == 0, "\(second.errors)")
    #expect(
      second.errors
        == "note: --uuid incrementing counts from 00000000-0000-0000-0000-000000000002: the "
        + "state at start holds its UUIDs up to 00000000-0000-0000-0000-000000000001, and a new "
        + "id repeating one would name two things\n")
    #expect(second.output.contains(#"id = "00000000-0000-0000-0000-000000000002""#))

    // The last UUID of the form, from a hand-edited file, as a key only: counted from 0 again,
    // said so, and no crash.
    let saved = directory.appendingPathComponent("data/todos.saved.lua")
    try """
      return { todos = {}, by_id = { ["00000000-0000-0000-0000-ffffffffffff"] = { deep = {} } } }
      """.write(to: saved, atomically: true, encoding: .utf8)
    let third = try run(1)
    #expect(third.status == 0, "\(third.errors)")
    #expect(
      third.errors
        == "note: --uuid incrementing: the state at start holds "
        + "00000000-0000-0000-0000-FFFFFFFFFFFF, the last of its UUIDs, so it counts from "
        + "00000000-0000-0000-0000-000000000000 again, and may repeat one the state holds\n")
    #expect(third.output.contains(#"id = "00000000-0000-0000-0000-000000000000""#))

    // A table shared 2^60 ways (as a saved file can write it): each table looked at once.
    var lines = ["local shared = {}", #"shared[1] = { "00000000-0000-0000-0000-00000000000a" }"#]
    for n in 2...60 { lines.append("shared[\(n)] = { shared[\(n - 1)], shared[\(n - 1)] }") }
    lines.append("return { todos = {}, by_id = {}, many = shared[60] }")
    try lines.joined(separator: "\n").write(to: saved, atomically: true, encoding: .utf8)
    let shared = try run(1)
    #expect(shared.status == 0, "\(shared.errors)")
    #expect(shared.errors.hasPrefix(
      "note: --uuid incrementing counts from 00000000-0000-0000-0000-00000000000B"), "\(shared.errors)")

    // A first run, nothing saved, whose initial_state holds one of its ids.
    let seeded = directory.appendingPathComponent("seeded.lua")
    try Self.feature.replacingOccurrences(
      of: "return { todos = {}, by_id = {} }",
      with: #"return { todos = { { id = "00000000-0000-0000-0000-000000000000" } }, by_id = {} }"#
    ).write(to: seeded, atomically: true, encoding: .utf8)
    let fresh = try Command.run(
      ["run", seeded.path, "--uuid", "incrementing", "--data", data + "-seeded", "--wait", "0"],
      input: "add\n")
    #expect(fresh.status == 0, "\(fresh.errors)")
    #expect(fresh.errors.hasPrefix(
      "note: --uuid incrementing counts from 00000000-0000-0000-0000-000000000001"), "\(fresh.errors)")
    #expect(fresh.output.contains(#"id = "00000000-0000-0000-0000-000000000001""#))

    // Kept with a prefix (`"todo:" .. env.uuid()`): found in the string.
    try #"return { todos = {}, by_id = { ["todo:00000000-0000-0000-0000-00000000002a!"] = {} } }"#
      .write(to: saved, atomically: true, encoding: .utf8)
    let prefixed = try run(1)
    #expect(prefixed.errors.hasPrefix(
      "note: --uuid incrementing counts from 00000000-0000-0000-0000-00000000002B"), "\(prefixed.errors)")

    // Without --uuid incrementing, nothing is said.
    let live = try Command.run(
      ["run", feature.path, "--data", data, "--wait", "0"], input: "add\n")
    #expect(live.status == 0 && live.errors == "", "\(live.errors)")
  }
}
