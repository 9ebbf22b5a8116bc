import ComposableHost
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// A reload that changed only the body of a coroutine an earlier action's `effect.run` runs:
/// the effect's description (a function) is the same, but the code of now would send other
/// actions than those the session recorded from it. The check of the reload sees the code (an
/// attacker's finding: it was crossed, and a test written after it failed when written).
@Suite struct EffectCodeInReloadsTests {
  typealias Harness = ReplSessionTests.Harness

  /// `go` counts and runs a coroutine that sends `got` with `sent` (`got` keeps it).
  static func source(
    sends sent: String, helper: String = "return v", above: String = ""
  )
    -> String
  {
    """
    \(above)local effect = require("composable.effect")
    local function shape(v) \(helper) end
    return {
      initial_state = function() return { n = 0, got = {} } end,
      reduce = function(state, action)
        if action.type == "go" then
          state.n = state.n + 1
          return effect.run(function(send) send({ type = "got", v = shape(\(sent)) }) end)
        elseif action.type == "got" then
          table.insert(state.got, action.v)
        end
      end,
    }
    """
  }

  func session(_ source: String) async throws -> Harness {
    let repl = try Harness(source: source, clock: ReplClock(paused: false))
    await repl.type("go")
    #expect(try repl.session.feature.state() == ["n": 1, "got": ["a"]])
    #expect(repl.session.timeline.count == 2)
    return repl
  }

  func reload(_ repl: Harness, _ source: String) async throws {
    try source.write(to: repl.file, atomically: true, encoding: .utf8)
    await repl.type(":reload")
  }

  @Test(arguments: [
    (#""b""#, "return v"),  // what the body sends
    (#""a""#, "return v .. v"),  // a helper the body calls
  ])
  func aCoroutineWhoseCodeChangedIsADifference(sent: String, helper: String) async throws {
    let repl = try await session(Self.source(sends: #""a""#))
    try await reload(repl, Self.source(sends: sent, helper: helper))
    let refused = await repl.type(":goto 0").0
    #expect(
      refused.contains("replayed through it, the code of action 1's effect differs"),
      "\(refused)")
    #expect(try repl.session.feature.state() == ["n": 1, "got": ["a"]])
    // :test starts after the reload, where the code of now made what was shown, and passes.
    let test = repl.file.deletingLastPathComponent().appendingPathComponent("counter_test.lua")
    let written = await repl.type(":test \(test.path)").0
    #expect(written.contains("it passes"), "\(written)")
  }

  /// `:replay` compares the code too, as the check of a reload does: the same effect, whose
  /// coroutine sends another action now, is a replay that went otherwise (it said the state is
  /// as it was, and a piped script passed: an attacker's finding). The same code moved is not.
  @Test func aReplayNamesAnEffectWhoseCodeChanged() async throws {
    let repl = try await session(Self.source(sends: #""a""#))
    try await reload(repl, Self.source(sends: #""b""#))
    let said = await repl.type(":replay").0
    #expect(
      said.contains(
        #"action 1 ({ type = "go" }) returns the same effect, whose functions' code differs now"#),
      "\(said)")
    let moved = try await session(Self.source(sends: #""a""#))
    try await reload(moved, Self.source(sends: #""a""#, above: "-- a comment\n\n"))
    let same = await moved.type(":replay").0
    #expect(!same.contains("code differs"), "\(same)")
  }

  /// The same code saved again, lines added above it: crossed, as before.
  @Test func theSameCodeMovedIsNoDifference() async throws {
    let repl = try await session(Self.source(sends: #""a""#))
    try await reload(repl, Self.source(sends: #""a""#, above: "-- a comment\n\n"))
    let went = await repl.type(":goto 0").0
    #expect(went.hasPrefix("  at the start"), "\(went)")
    #expect(try repl.session.feature.state() == ["n": 0, "got": []])
  }

  /// An undone action redone over a reload whose coroutine changed ends the redo there: what
  /// its effect sent was the old code's.
  @Test func aRedoOverACoroutineThatChangedEndsThere() async throws {
    let repl = try await session(Self.source(sends: #""a""#))
    await repl.type(":goto 0")
    try await reload(repl, Self.source(sends: #""b""#))
    let said = await repl.type(":redo").0
    #expect(
      said.contains(
        "action 1 returns another effect now: the 1 undone action after it, typed ones too, "
          + "are dropped (they came after what the old effect did, and the actions it sent are "
          + "among them)"), "\(said)")
  }

  /// A feature whose every action but `inc` and `dec` returns a coroutine sending what a helper
  /// answers, each helper reached another way; `which` is what they answer.
  static func helpers(_ which: String, extra: String = "", firstBranch: String = "") -> String {
    """
    local effect = require("composable.effect")
    local util = require("util")
    \(extra)
    local M = {}
    M.helper = function() return "\(which)" end
    local K = { which = "\(which)" }
    function global_helper() return "\(which)" end
    local function h9() return "\(which)" end
    local function h8() return h9() end
    local function h7() return h8() end
    local function h6() return h7() end
    local function h5() return h6() end
    local function h4() return h5() end
    local function h3() return h4() end
    local function h2() return h3() end
    local function h1() return h2() end
    local function direct() return "\(which)" end
    local F = {}
    function F.initial_state() return { n = 0 } end
    function F.reduce(state, action, env)
      local t = action.type
      \(firstBranch)
      if t == "inc" then state.n = state.n + 1
      elseif t == "dec" then state.n = state.n - 1
      elseif t == "plain" then return effect.run(function(send) send(direct()) end)
      elseif t == "tab" then return effect.run(function(send) send(M.helper()) end)
      elseif t == "glob" then return effect.run(function(send) send(global_helper()) end)
      elseif t == "mod" then return effect.run(function(send) send(util.which()) end)
      elseif t == "konst" then return effect.run(function(send) send(K.which) end)
      elseif t == "deep" then return effect.run(function(send) send(h1()) end)
      elseif t == "env" then
        return effect.run(function(send) local _ = env; local _ = state; send(direct()) end)
      end
    end
    return F
    """
  }

  func helperSession(_ action: String) async throws -> Harness {
    let folder = try makeTemporaryDirectory("effect-code")
    try #"return { which = function() return "inc" end }"#.write(
      to: folder.appendingPathComponent("util.lua"), atomically: true, encoding: .utf8)
    let file = folder.appendingPathComponent("f.lua")
    try Self.helpers("inc").write(to: file, atomically: true, encoding: .utf8)
    let repl = try Harness(clock: ReplClock(paused: false), file: file)
    await repl.type(action)
    #expect(try repl.session.feature.state() == ["n": 1], "\(action)")
    return repl
  }

  /// A local helper the coroutine calls, changed, directly or nine calls down: a difference.
  /// One reached through a table, a global or a module is not compared (what those hold is
  /// data as much as code); the test written after it says it does not pass yet.
  @Test(arguments: ["plain", "deep", "tab", "glob", "mod", "konst"])
  func aHelperChangedIsADifferenceOrTheTestSaysSo(action: String) async throws {
    let repl = try await helperSession(action)
    let folder = repl.file.deletingLastPathComponent()
    if action == "mod" {
      try #"return { which = function() return "dec" end }"#.write(
        to: folder.appendingPathComponent("util.lua"), atomically: true, encoding: .utf8)
      try await reload(repl, Self.helpers("inc") + "\n")
    } else {
      try await reload(
        repl,
        Self.helpers("inc").replacingOccurrences(of: "\"inc\" end", with: "\"dec\" end")
          .replacingOccurrences(of: "which = \"inc\"", with: "which = \"dec\""))
    }
    let refused = await repl.type(":goto 0").0
    if ["plain", "deep"].contains(action) {
      #expect(refused.contains("the code of action 1's effect differs"), "\(action): \(refused)")
    } else {
      await repl.type(":goto 2")
      let test = folder.appendingPathComponent("f_\(action)_test.lua")
      let written = await repl.type(":test \(test.path)").0
      #expect(written.contains("it does not pass yet"), "\(action): \(written)")
    }
  }

  /// A coroutine that uses a global or a module, the file reloaded as it was: crossed (an
  /// attacker's finding: refused, as the globals held what changed since, and `:save` then
  /// kept no action).
  @Test func aCoroutineUsingGlobalsAndModulesCrossesTheSameFile() async throws {
    let folder = try makeTemporaryDirectory("effect-code-globals")
    let file = folder.appendingPathComponent("g.lua")
    let source = """
      local effect = require("composable.effect")
      local runs = { count = 0 }
      return {
        initial_state = function() return { n = 0 } end,
        reduce = function(state, action)
          if action.type == "go" then
            state.n = state.n + 1
            return effect.run(function(send)
              runs.count = runs.count + 1
              send({ type = "done", text = tostring(runs.count) })
            end)
          elseif action.type == "done" then state.text = action.text end
        end,
      }
      """
    try source.write(to: file, atomically: true, encoding: .utf8)
    let repl = try Harness(clock: ReplClock(paused: false), file: file)
    await repl.type("go", "go")
    try await reload(repl, source)
    let went = await repl.type(":goto 0").0
    #expect(went.hasPrefix("  at the start"), "\(went)")
  }

  /// What moves the coroutine's upvalues around it without changing it: a local added above, a
  /// new first branch reading a new local (an attacker's finding: refused, and a redo dropped
  /// the undone actions); the env and the state it holds.
  @Test(arguments: ["plain", "tab", "glob", "mod", "konst", "deep", "env"])
  func codeMovedAroundTheCoroutineIsNoDifference(action: String) async throws {
    let repl = try await helperSession(action)
    await repl.type("inc", "inc", ":goto 1")
    try await reload(
      repl,
      Self.helpers(
        "inc", extra: "local MAX = 10\nlocal greeting = \"hi\"",
        firstBranch: "if t == \"greet\" then state.msg = greeting .. MAX end"))
    let redone = await repl.type(":redo").0
    #expect(!redone.contains("dropped"), "\(action): \(redone)")
    #expect(repl.session.timeline.count == 4, "\(action): \(redone)")
    let went = await repl.type(":goto 0").0
    #expect(went.hasPrefix("  at the start"), "\(action): \(went)")
  }

  /// A body that reads another table than it did (`action` where it read `state`): the same
  /// bytecode, tables counted by type, but the upvalue's name says which (an attacker's finding:
  /// crossed, and the test written after it failed).
  @Test func aBodyReadingAnotherTableIsADifference() async throws {
    func source(_ table: String) -> String {
      """
      local effect = require("composable.effect")
      return {
        initial_state = function() return { id = 1, got = 0 } end,
        reduce = function(state, action)
          if action.type == "load" then
            return effect.run(function(send) send({ type = "loaded", id = \(table).id }) end)
          elseif action.type == "loaded" then state.got = action.id end
        end,
      }
      """
    }
    let repl = try Harness(source: source("state"), clock: ReplClock(paused: false))
    await repl.type(#"{ type = "load", id = 99 }"#)
    #expect(try repl.session.feature.state() == ["id": 1, "got": 1])
    try await reload(repl, source("action"))
    let refused = await repl.type(":goto 0").0
    #expect(refused.contains("the code of action 1's effect differs"), "\(refused)")
  }

  /// A C function as the body is known by which it is.
  @Test func aCFunctionBodyIsKnownByWhichItIs() throws {
    let feature = try LuaFeature(
      source: "return { initial_state = function() return {} end, reduce = function() end }",
      file: "c.lua")
    let prints = try feature.evaluate("print")[0]
    let errors = try feature.evaluate("error")[0]
    #expect(feature.codeHash(ofFunctionsIn: prints) != feature.codeHash(ofFunctionsIn: errors))
    #expect(
      feature.codeHash(ofFunctionsIn: prints)
        == feature.codeHash(ofFunctionsIn: try feature.evaluate("print")[0]))
  }

  /// Closures 120 wide, seven levels deep, all sharing: each is walked once, and the walk is
  /// bounded (an attacker's finding: one action took 30 s of CPU, deaf to SIGINT and SIGTERM).
  @Test func aWideSharedWebOfClosuresIsHashedOnce() throws {
    var params: [String] = []
    for i in 0..<120 { params.append("a\(i)") }
    let list = params.joined(separator: ", ")
    let feature = try LuaFeature(
      source: """
        local function mk(\(list)) return function() return \(list) end end
        local level = {}
        for i = 1, 120 do level[i] = mk() end
        for _ = 1, 6 do
          local n = {}
          for i = 1, 120 do n[i] = mk(table.unpack(level, 1, 120)) end
          level = n
        end
        ROOT = mk(table.unpack(level, 1, 120))
        return { initial_state = function() return {} end, reduce = function() end }
        """, file: "web.lua")
    let root = try feature.evaluate("ROOT")[0]
    let start = ContinuousClock.now
    #expect(feature.codeHash(ofFunctionsIn: root) != nil)
    // Not a timing test: a bound far above the work (one walk of ~100,000 upvalues), far below
    // what the unbounded walk took (30 s).
    #expect(ContinuousClock.now - start < .seconds(10))
  }
}
