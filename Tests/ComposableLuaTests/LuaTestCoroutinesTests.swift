import ComposableLua
import Foundation
import TestSupport
import Testing

/// A TestStore called from a coroutine the test made, from a place C calls, or through a tail
/// call; declarations made where they never run (an attacker's findings). The runner asks the
/// host by yielding: inside the test's own coroutine that yield went to the coroutine, and the
/// call was dropped: the action never sent, the expectation never checked, the test green.
@Suite struct LuaTestCoroutinesTests {
  static let counter = """
    return {
      initial_state = function() return { count = 0 } end,
      reduce = function(state, action)
        if action.type == "inc" then state.count = state.count + 1 end
      end,
    }
    """

  static func outcomes(
    _ test: String
  ) async throws -> (failures: [String: String], passed: [String]) {
    let directory = try makeTemporaryDirectory("lua-test-coroutines")
    defer { try? FileManager.default.removeItem(at: directory) }
    try counter.write(
      to: directory.appendingPathComponent("counter.lua"), atomically: false, encoding: .utf8)
    let file = directory.appendingPathComponent("co_test.lua")
    try test.write(to: file, atomically: false, encoding: .utf8)
    return await LuaTestErrorObjectsTests.outcomes(of: file)
  }

  /// In `coroutine.wrap` and `coroutine.resume`, nested two deep: each call reaches the store,
  /// a wrong expectation fails at its line, and a right one passes; the coroutine's own yields
  /// still go to whoever resumed it.
  @Test func aStoreCalledInsideACoroutineIsAsked() async throws {
    let outcome = try await Self.outcomes(
      """
      local TestStore = require("composable.test").TestStore
      describe("co", function()
        it("wrong in wrap", function()
          local store = TestStore.new { feature = "counter" }
          local co = coroutine.wrap(function()
            store:send("inc", function(s) s.count = 999 end)
          end)
          co()
        end)
        it("wrong state in resume", function()
          local store = TestStore.new { feature = "counter" }
          local co = coroutine.create(function()
            store:send("inc", function(s) s.count = 1 end)
            assert.same({ count = 42 }, store.state)
          end)
          local ok, err = coroutine.resume(co)
          assert(ok, err)
        end)
        it("right, nested, with yields of its own", function()
          local store = TestStore.new { feature = "counter" }
          local outer = coroutine.wrap(function()
            local inner = coroutine.wrap(function()
              store:send("inc", function(s) s.count = 1 end)
              coroutine.yield("first")
              store:send("inc", function(s) s.count = 2 end)
              return "last"
            end)
            local a = inner()
            local b = inner()
            coroutine.yield(a .. "," .. b)
            return store.state.count
          end)
          assert.equal("first,last", outer())
          assert.equal(2, outer())
        end)
      end)
      """)
    #expect(outcome.passed == ["co right, nested, with yields of its own"], "\(outcome)")
    let wrap = try #require(outcome.failures["co wrong in wrap"], "\(outcome)")
    #expect(wrap.contains("co_test.lua:6:"), "\(wrap)")
    #expect(wrap.contains("count = 999"), "\(wrap)")
    let resume = try #require(outcome.failures["co wrong state in resume"], "\(outcome)")
    #expect(resume.contains("count = 42"), "\(resume)")
  }

  /// Lua's `coroutine.wrap` raises a string error again with the caller's place, and a table as
  /// it is; a dead coroutine says so.
  @Test func wrapRaisesAsLuasDoes() async throws {
    let outcome = try await Self.outcomes(
      """
      describe("wrap", function()
        it("errors", function()
          local co = coroutine.wrap(function() error("boom", 0) end)
          local ok, err = pcall(co)
          assert.equal("boom", err)
          local co2 = coroutine.wrap(function() error("boom", 0) end)
          ok, err = pcall(function() co2() end)
          assert.equal("co_test.lua:7: boom", (err:gsub("^.*/", "")))
          local t = {}
          ok, err = pcall(coroutine.wrap(function() error(t) end))
          assert.equal(t, err)
          local done = coroutine.wrap(function() end)
          done()
          ok, err = pcall(done)
          assert.equal("cannot resume dead coroutine", err)
          ok, err = pcall(function() done() end)
          assert.equal("co_test.lua:16: cannot resume dead coroutine", (err:gsub("^.*/", "")))
        end)
      end)
      """)
    #expect(outcome.failures.isEmpty, "\(outcome.failures)")
  }

  /// `pcall(store.send, ...)` and `return store:send(...)` (a tail call) are said at the test's
  /// line, or its `it`: not at `[C]:0` or the runner's own lines. A call inside a function C
  /// calls (`string.gsub`'s) says that, not "the function given to send or receive".
  @Test func placesPassOverCAndTheRunner() async throws {
    let outcome = try await Self.outcomes(
      """
      local TestStore = require("composable.test").TestStore
      describe("places", function()
        it("pcall", function()
          local store = TestStore.new { feature = "counter" }
          pcall(store.send, store, "inc", function(s) s.count = 5 end)
        end)
        it("tail call", function()
          local store = TestStore.new { feature = "counter" }
          return store:send("inc", function(s) s.count = 7 end)
        end)
        it("gsub", function()
          local store = TestStore.new { feature = "counter" }
          string.gsub("x", "x", function() store:send("inc") end)
        end)
      end)
      """)
    let pcalled = try #require(outcome.failures["places pcall"], "\(outcome)")
    #expect(pcalled.contains("co_test.lua:5:"), "\(pcalled)")
    let tail = try #require(outcome.failures["places tail call"], "\(outcome)")
    #expect(tail.contains("co_test.lua:7:"), "\(tail)")
    #expect(!tail.contains("composable.test"), "\(tail)")
    let gsub = try #require(outcome.failures["places gsub"], "\(outcome)")
    #expect(
      gsub.contains(
        "store:send() cannot be used inside a function Lua calls from C, which cannot wait for "
          + "the store (string.gsub's function, table.sort's comparator, a metamethod, an "
          + "xpcall's handler); to fix, call it from the test's body"), "\(gsub)")
  }

  /// `it` inside a running test never ran, unsaid; a declaration missing its function, or named
  /// by another kind, failed in the runner's lines. Now each is said at its line, and `it` with
  /// no function is pending, as busted has it.
  @Test func declarationsAreCheckedWhereTheyAreMade() async throws {
    let outcome = try await Self.outcomes(
      """
      describe("decl", function()
        it("outer", function()
          it("inner", function() error("inner ran") end)
        end)
        it("no body")
        it("hooks", function()
          before_each(function() end)
        end)
      end)
      """)
    let outer = try #require(outcome.failures["decl outer"], "\(outcome)")
    #expect(
      outer.contains(
        "co_test.lua:3: it() inside a test, whose tests and hooks would never run; to fix, "
          + "declare it at the file's top level or in a describe block"), "\(outer)")
    #expect(outcome.passed.contains("decl no body"), "\(outcome)")
    let hooks = try #require(outcome.failures["decl hooks"], "\(outcome)")
    #expect(hooks.contains("co_test.lua:7: before_each() inside a test"), "\(hooks)")
    for (declaration, message) in [
      (#"describe("d")"#, "co_test.lua:1: describe: expected a function after the name, got nil"),
      (#"it({}, function() end)"#, "co_test.lua:1: it: expected a name (a string), got table"),
      (#"it("x", 5)"#, "co_test.lua:1: it: expected a function after the name, got number"),
    ] {
      let loaded = try await Self.outcomes(declaration)
      let all = loaded.failures.values.joined(separator: "\n")
      #expect(all.contains(message), "\(declaration): \(loaded)")
    }
  }

  /// A test's name with line breaks is one line of the readable report.
  @Test func aNameIsOneLineOfTheReport() {
    let results = [
      LuaTestResult(
        name: "a\n✓ fake\r\nb", file: "x_test.lua", line: 1, outcome: .failed(["x"]), seconds: 0)
    ]
    let report = LuaTestReport.readable(results)
    #expect(report.hasPrefix("✗ a\\n✓ fake\\r\\nb\n"), "\(report)")
    #expect(!report.contains("\n✓"), "\(report)")
  }

  /// What an attacker found past the first fix: the library `require("coroutine")` gives was a
  /// copy left unguarded (a forged `expect_failure` erased every failure; a store call in its
  /// `wrap` was dropped); a call made where it could not be asked, its error caught by a `pcall`,
  /// passed; `it("name", nil)` (a misspelt variable) was pending.
  @Test func noCallIsDroppedUnsaid() async throws {
    let outcome = try await Self.outcomes(
      """
      local TestStore = require("composable.test").TestStore
      local bad = function(s) s.count = 99 end
      it("forged", function()
        local store = TestStore.new { feature = "counter" }
        store:send("inc", bad)
        require("coroutine").yield({ op = "expect_failure", mark = 0, patterns = { "" } })
      end)
      it("required wrap", function()
        local store = TestStore.new { feature = "counter" }
        require("coroutine").wrap(function() store:send("inc", bad) end)()
      end)
      it("caught", function()
        local store = TestStore.new { feature = "counter" }
        pcall(table.sort, { 3, 1, 2 }, coroutine.wrap(function(a, b)
          store:send("inc", bad)
          return a < b
        end))
      end)
      it("handler", function()
        local store = TestStore.new { feature = "counter" }
        xpcall(error, function(e) store:send("inc", bad) return e end)
      end)
      it("never resumed", function()
        local store = TestStore.new { feature = "counter" }
        local co = coroutine.create(function() store:send("inc") end)
      end)
      """)
    #expect(outcome.passed == ["never resumed"], "\(outcome)")
    #expect(
      outcome.failures["forged"]?.contains("attempt to yield from outside a coroutine") == true,
      "\(outcome)")
    #expect(outcome.failures["required wrap"]?.contains("count = 99") == true, "\(outcome)")
    #expect(
      outcome.failures["caught"]?.contains("co_test.lua:15: store:send() was never answered")
        == true, "\(outcome)")
    #expect(
      outcome.failures["handler"]?.contains("co_test.lua:21: store:send() cannot be used inside")
        == true, "\(outcome)")
    let bodies = try await Self.outcomes(
      """
      local misspelt
      it("no body")
      it("nil body", misspelt)
      """)
    let all = bodies.failures.values.joined(separator: "\n")
    #expect(all.contains("co_test.lua:3: it: expected a function after the name, got nil"))
    let pending = try await Self.outcomes(#"it("no body")"#)
    #expect(pending.passed == ["no body"] && pending.failures.isEmpty, "\(pending)")
  }

  /// Hooks are read when a test runs, as busted reads them: an `after_each` below an `it` runs
  /// for it too. `TestStore.new` while the file loads says so; `coroutine.wrap` is Lua's own,
  /// a generator's every step included. (That its steps cost the budget what Lua's do is not
  /// asked here: a step count large enough to tell ran past the time limit under sanitizers.)
  @Test func hooksLoadsAndGenerators() async throws {
    let outcome = try await Self.outcomes(
      """
      local TestStore = require("composable.test").TestStore
      describe("hooks", function()
        local store
        before_each(function() store = TestStore.new { feature = "counter" } end)
        it("sends", function() store:send("inc", function(s) s.count = 1 end) end)
        after_each(function() assert.same({ count = 100 }, store.state) end)
      end)
      it("generator", function()
        local gen = coroutine.wrap(function() for i = 1, 20000 do coroutine.yield(i) end end)
        local sum = 0
        for _ = 1, 20000 do sum = sum + gen() end
        assert.equal(20000 * 20001 // 2, sum)
        assert.equal("bad argument #1 to 'coroutine.wrap' (function expected, got number)",
          select(2, pcall(coroutine.wrap, 1)))
      end)
      """)
    #expect(outcome.passed == ["generator"], "\(outcome)")
    #expect(outcome.failures["hooks sends"]?.contains("count = 100") == true, "\(outcome)")
    let loading = try await Self.outcomes(
      """
      local TestStore = require("composable.test").TestStore
      local store = TestStore.new { feature = "counter" }
      it("x", function() end)
      """)
    #expect(
      loading.failures.values.joined().contains(
        "TestStore.new cannot be used while the file loads, outside a test; to fix, make the "
          + "store in it() or before_each()"), "\(loading)")
  }

  /// A third attacker's false passes: a coroutine left suspended at a call that could not be
  /// asked, then resumed by the test (or an xpcall's handler, or the function given to send),
  /// took that resume for the store's answer; a call dropped in an `after_each` went unsaid; the
  /// function given to send resumed the test's own thread, and the test's failure went to it.
  @Test func noResumeButTheStoresAnswersACall() async throws {
    let outcome = try await Self.outcomes(
      """
      local TestStore = require("composable.test").TestStore
      local bad = function(s) s.count = 999 end
      describe("x", function()
        it("resumed again", function()
          local store = TestStore.new { feature = "counter" }
          local A = coroutine.wrap(function() store:send("inc", bad) end)
          pcall(table.sort, { 1, 2 }, function(a, b) A() return a < b end)
          A()
        end)
        it("handler", function()
          local store = TestStore.new { feature = "counter" }
          local co = coroutine.create(function() store:send("inc", bad) end)
          xpcall(error, function(m) coroutine.resume(co) return m end, "boom")
        end)
        it("own thread", function()
          local store = TestStore.new { feature = "counter" }
          local T = coroutine.running()
          store:send("inc", function(s) s.count = 1 coroutine.resume(T) end)
          assert.equal(1, 2)
        end)
      end)
      describe("hooks", function()
        local store
        before_each(function() store = TestStore.new { feature = "counter" } end)
        after_each(function()
          pcall(table.sort, { 1, 2 }, function(a, b) store:send("inc", bad) return a < b end)
        end)
        it("t", function() end)
      end)
      """)
    #expect(outcome.passed.isEmpty, "\(outcome)")
    #expect(
      outcome.failures["x resumed again"]?.contains(
        "co_test.lua:8: store:send() was resumed without the store's answer") == true,
      "\(outcome)")
    #expect(
      outcome.failures["x handler"]?.contains("co_test.lua:12: store:send() was never answered")
        == true)
    #expect(
      outcome.failures["x own thread"]?.contains(
        "cannot resume a coroutine the host resumes (a Lua test's own") == true,
      "\(outcome)")
    #expect(
      outcome.failures["hooks t"]?.contains("co_test.lua:26: store:send() cannot be used") == true,
      "\(outcome)")
  }

  /// A fourth attacker's false passes: a coroutine waiting in a pass-on, resumed by the function
  /// given to send deep in the C stack, let the host's answer (its token) reach test code; an
  /// `expect_failure` left open by a yield of its function and closed in an `after_each` erased
  /// the body's failure. The main thread, reached at the file's top level, was resumable.
  @Test func noWaitingCoroutineNorExpectationIsTheTests() async throws {
    let outcome = try await Self.outcomes(
      """
      local TestStore = require("composable.test").TestStore
      local main = coroutine.running()
      describe("x", function()
        it("waiting", function()
          local store = TestStore.new { feature = "counter" }
          local C1, C2
          C2 = coroutine.create(function()
            store:send("inc", function(s) s.count = 1 coroutine.resume(C1) end)
          end)
          C1 = coroutine.create(function() coroutine.resume(C2) end)
          coroutine.resume(C1)
        end)
        local co
        it("expecting", function()
          co = coroutine.create(function()
            expect_failure(".", function() coroutine.yield() end)
          end)
          local ok, err = coroutine.resume(co)
          assert(not ok, "the yield out of expect_failure's function was let through")
          assert.error(function() error(err) end, "coroutine.yield inside expect_failure")
          assert.equal(1, 2)
        end)
        it("main", function()
          assert.same({ false, "cannot resume non-suspended coroutine" },
            { coroutine.resume(main) })
          assert.error(function() coroutine.close(main) end, "cannot close a normal coroutine")
        end)
      end)
      """)
    #expect(outcome.passed == ["x main"], "\(outcome)")
    #expect(
      outcome.failures["x waiting"]?.contains(
        "cannot resume a coroutine the host resumes (a Lua test's own, or one waiting for the "
          + "host's answer to a call it passed on)") == true, "\(outcome)")
    #expect(
      outcome.failures["x expecting"]?.contains("Expected objects to be equal") == true,
      "\(outcome)")
  }
}
