@testable import ComposableLua
import Foundation
import TestSupport
import Testing

/// Each Lua test runs in its file loaded again, found by its place in the list. A file whose
/// list changes from load to load (tests declared in `pairs` order, which differs between VMs)
/// fails the test that moved, saying why; it never runs another test under its name, and never
/// stops the runner.
@Suite struct TestListPerLoadTests {
  static func session(_ source: String) throws -> LuaTestSession {
    try LuaTestSession(
      source: LuaString(source), directory: FileManager.default.temporaryDirectory,
      displayName: "order_test.lua", output: { _ in })
  }

  @Test func aTestThatMovedIsNamed() throws {
    let first = try Self.session(#"it("a", function() end) it("b", function() end)"#)
    let swapped = try Self.session(#"it("b", function() end) it("a", function() end)"#)
    let message = try #require(
      LuaTestRunner.changedDeclaration(of: 0, first: first, again: swapped))
    #expect(
      message == #"test 1 was "a" and is "b" when the file is loaded again to run it. A test file "#
        + "must declare the same tests, in the same order, every time it is loaded. To fix, do "
        + "not make the list depend on pairs order, the time or randomness (sort the keys first)")
    #expect(LuaTestRunner.changedDeclaration(of: 0, first: first, again: first) == nil)
  }

  @Test func aTestThatIsGoneIsNamed() async throws {
    let first = try Self.session(#"it("a", function() end) it("b", function() end)"#)
    let shorter = try Self.session(#"it("a", function() end)"#)
    let message = try #require(
      LuaTestRunner.changedDeclaration(of: 1, first: first, again: shorter))
    #expect(message.hasPrefix("the file declared 2 tests, and 1 when loaded again to run test 2."))
    #expect(await shorter.runTest(5) == ["order_test.lua: no test 6 in this load of the file"])
  }

  /// The attacker's file, whose tests depend on `pairs` order: run many times, it never stops
  /// the runner, and every failure is the test's own or the message above.
  @Test func aFileDeclaringInPairsOrderNeverCrashes() async throws {
    let directory = try makeTemporaryDirectory("pairs-order")
    let file = directory.appendingPathComponent("order_test.lua")
    try """
    local set = {} for i = 1, 20 do set["k" .. i] = i end
    for k in pairs(set) do
      it(k, function() if k == "k1" then error("k1 always fails") end end)
    end
    """.write(to: file, atomically: true, encoding: .utf8)
    for _ in 0..<20 {
      let results = await LuaTestRunner().run(file: file)
      #expect(results.count == 20)
      for result in results {
        guard case let .failed(failures) = result.outcome else { continue }
        let own = result.name == "k1" && failures.allSatisfy { $0.contains("k1 always fails") }
        let moved = failures.allSatisfy { $0.contains("when the file is loaded again") }
        #expect(own || moved, "\(result.name): \(failures)")
      }
    }
  }
}

/// A test that calls the store for ever passes each call's budget; the runner's time limit stops
/// it, at the call it was making, and the next test runs.
@Suite struct LuaTestTimeLimitTests {
  @Test func aTestThatNeverEndsIsStopped() async throws {
    let directory = try makeTemporaryDirectory("time-limit")
    try """
    local M = {}
    function M.initial_state() return { n = 0 } end
    function M.reduce(state) state.n = state.n + 1 end
    return M
    """.write(to: directory.appendingPathComponent("spin.lua"), atomically: true, encoding: .utf8)
    let file = directory.appendingPathComponent("spin_test.lua")
    try """
    local TestStore = require("composable.test").TestStore
    it("spins", function()
      local store = TestStore.new{ feature = require("spin"), exhaustive = false }
      while true do store:send("noop") end
    end)
    it("runs after", function() end)
    """.write(to: file, atomically: true, encoding: .utf8)
    let results = await LuaTestRunner(timeLimit: .milliseconds(300)).run(file: file)
    #expect(results.map(\.name) == ["spins", "runs after"])
    guard case let .failed(failures) = results.first?.outcome else {
      Issue.record("the spinning test passed")
      return
    }
    #expect(
      failures.first?.contains("spin_test.lua:4: the test ran for more than 0.3 seconds") == true,
      "\(failures)")
    #expect(results.last?.outcome == .passed)
  }

  /// One call that would run for ever: an advance over a timer that ticks every nanosecond
  /// (a thousand seconds is a trillion ticks). It stops at the time limit, reported at its line.
  @Test func anAdvanceOverAFastTimerStopsAtTheTimeLimit() async throws {
    let results = try await Self.advanceOverATimer(
      named: "fast", every: "1e-9", advance: "1000",
      runner: LuaTestRunner(timeLimit: .milliseconds(500)))
    #expect(results.map(\.name) == ["advances", "runs after"])
    guard case let .failed(failures) = results.first?.outcome else {
      Issue.record("the advancing test passed")
      return
    }
    #expect(
      failures.first?.contains("fast_test.lua:5: the test ran for more than 0.5 seconds") == true,
      "\(failures)")
    #expect(results.last?.outcome == .passed)
  }

  /// An advance whose timers fire more than the runner's most wake-ups stops there, at its
  /// line, saying so: each wake-up's received action stays until the test receives it.
  @Test func anAdvanceStopsAfterItsMostWakeUps() async throws {
    let results = try await Self.advanceOverATimer(
      named: "ms", every: "0.001", advance: "10",
      runner: LuaTestRunner(maximumWakeUpsPerAdvance: 50))
    guard case let .failed(failures) = results.first?.outcome else {
      Issue.record("the advancing test passed")
      return
    }
    // The file is outside the folder the tests run in: named by its absolute path.
    #expect(results.first?.file.hasPrefix("/") == true)
    #expect(results.first?.file.hasSuffix("/ms_test.lua") == true)
    let file: String = results.first?.file ?? ""
    #expect(
      failures.first
        == file + ":5: advance: timers fired 50 times within this advance of 10.0 s, and it "
        + "was stopped there (at 0.05 s of test time). To fix, advance by less, or give the "
        + "timer a longer interval",
      "\(failures)")
  }

  /// Runs `NAME_test.lua`: a test that starts `effect.every(EVERY)` in feature `NAME` and
  /// advances by `ADVANCE` seconds (its line 5), then a test that runs after it.
  static func advanceOverATimer(
    named name: String, every: String, advance: String, runner: LuaTestRunner
  ) async throws -> [LuaTestResult] {
    let directory = try makeTemporaryDirectory("advance")
    try """
    local effect = require("composable.effect")
    local M = {}
    function M.initial_state() return { ticks = 0 } end
    function M.reduce(state, action)
      if action.type == "start" then return effect.every(\(every), "tick") end
      state.ticks = state.ticks + 1
    end
    return M
    """.write(to: directory.appendingPathComponent(name + ".lua"), atomically: true, encoding: .utf8)
    let file = directory.appendingPathComponent(name + "_test.lua")
    try """
    local TestStore = require("composable.test").TestStore
    it("advances", function()
      local store = TestStore.new{ feature = require("\(name)"), exhaustive = false }
      store:send("start")
      store:advance(\(advance))
    end)
    it("runs after", function() end)
    """.write(to: file, atomically: true, encoding: .utf8)
    return await runner.run(file: file)
  }
}
