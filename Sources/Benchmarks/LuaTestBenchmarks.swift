import ComposableLua
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The todos feature's Lua tests through our runner and TestStore, beside the same assertions
/// written as busted specs that call `reduce` directly (Debian's lua-busted), each timed as a
/// whole run of its command.
enum LuaTestBenchmarks {
  /// The todos assertions as a busted user would write them: reducers called directly, effects
  /// checked by hand.
  static let spec = #"""
    local Todos = require("todos")

    local function id(n) return string.format("00000000-0000-0000-0000-%012X", n) end
    local function env()
      local next_id = 0
      return { uuid = function() local value = id(next_id); next_id = next_id + 1; return value end }
    end

    describe("todos", function()
      it("adds, edits and deletes", function()
        local state, e = Todos.initial_state(), env()
        Todos.reduce(state, { type = "add", title = "milk" }, e)
        assert.same({ { id = id(0), title = "milk", done = false } }, state.todos)
        Todos.reduce(state, { type = "todo", id = id(0), action = { type = "edited", title = "oat milk" } }, e)
        assert.same("oat milk", state.todos[1].title)
        Todos.reduce(state, { type = "delete", id = id(0) }, e)
        assert.same({}, state.todos)
      end)

      it("sorts completed todos to the bottom after a toggle", function()
        local state, e = Todos.initial_state(), env()
        for _, title in ipairs({ "c", "b", "a" }) do Todos.reduce(state, { type = "add", title = title }, e) end
        local effect = Todos.reduce(state, { type = "todo", id = id(2), action = "toggled" }, e)
        assert.same("debounce", effect.kind)
        assert.same(1, effect.seconds)
        Todos.reduce(state, { type = "todo", id = id(1), action = "toggled" }, e)
        Todos.reduce(state, { type = "sort" }, e)
        assert.same({ "c", "a", "b" }, { state.todos[1].title, state.todos[2].title, state.todos[3].title })
      end)

      it("starts from a saved list", function()
        local state, e = Todos.initial_state(), env()
        state.todos = { { done = false, id = "A", title = "from last time" } }
        Todos.reduce(state, { type = "todo", id = "A", action = "toggled" }, e)
        assert.same(true, state.todos[1].done)
      end)
    end)
    """#

  static func run() throws -> [Figure] {
    guard let busted = which("busted") else {
      throw BenchmarkError("busted is missing: scripts/install-deps installs lua-busted")
    }
    // Under Lua 5.4, as features run (Debian's busted runs under `lua`, 5.1 by default, which
    // the library, written for 5.4 (`<close>`), does not load under).
    guard let lua = which("lua5.4") else {
      throw BenchmarkError("lua5.4 is missing: scripts/install-deps installs it")
    }
    let composable = try BenchmarkFiles.composable()
    // The busted side: the spec, the feature's files, and the composable library as files.
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "busted-\(UUID())")
    try FileManager.default.createDirectory(
      at: directory.appendingPathComponent("composable"), withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let examples = BenchmarkFiles.examples.appendingPathComponent("todos")
    for file in ["todos.lua", "todo.lua"] {
      try FileManager.default.copyItem(
        at: examples.appendingPathComponent(file), to: directory.appendingPathComponent(file))
    }
    let modules = ComposableLuaLibrary.modules.merging(
      ["composable.journal": ComposableLuaLibrary.plainJournal]) { $1 }
    for (name, source) in modules {
      try source.write(
        to: directory.appendingPathComponent(
          name.replacingOccurrences(of: ".", with: "/") + ".lua"), atomically: true, encoding: .utf8
      )
    }
    try spec.write(
      to: directory.appendingPathComponent("todos_spec.lua"), atomically: true, encoding: .utf8)

    func time(_ executable: String, _ arguments: [String]) throws -> Double {
      try ChildProcess.timedRun([executable] + arguments)
    }

    var ours: [Double] = [], theirs: [Double] = []
    for _ in 0..<7 {
      // Both told where to work by argument: nothing changes this process's directory.
      ours.append(try time(composable.path, ["test", examples.path]))
      theirs.append(
        try time(
          busted,
          [
            "--directory=\(directory.path)", "--lua=\(lua)", "--lpath=./?.lua", "todos_spec.lua",
          ]))
    }
    let (oursMedian, bustedMedian) = (ours.sorted()[3], theirs.sorted()[3])
    return [
      Figure(name: "test.todos.ours_ms", value: oursMedian, unit: "ms"),
      Figure(name: "test.todos.busted_ms", value: bustedMedian, unit: "ms"),
      Figure(name: "test.todos.ratio_vs_busted", value: oursMedian / bustedMedian, unit: "x"),
    ]
  }

  static func which(_ command: String) -> String? {
    for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(
      separator: ":")
    {
      let path = "\(directory)/\(command)"
      if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return nil
  }
}
