import Testing

@testable import LuaKit

/// Every call ends within its budget plus a bounded slack, whatever runs inside it: C library
/// functions that loop without running Lua instructions, finalizers, nested coroutine.close,
/// the description of an error object. And what a VM makes the process hold stays under its
/// memory cap.
@Suite struct LuaBoundedCallTests {
  static let budget = 1_000_000
  static let cap = 8 << 20
  /// What building an error's report may take beyond the cap: a message cut at 16 KiB and a
  /// traceback cut at 22 levels.
  static let reportSlack = 64 << 10

  private func makeVM(
    memory: Int? = LuaBoundedCallTests.cap, instructions: Int? = LuaBoundedCallTests.budget
  ) throws -> (LuaVM, LuaSandbox) {
    let vm = try LuaVM(limits: LuaLimits(memory: memory, instructions: instructions))
    return (vm, try vm.makeSandbox())
  }

  /// Runs `source`, expecting it to stop at the instruction budget, then shows the VM works.
  private func expectStopsAtTheBudget(
    _ source: String, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let (vm, sandbox) = try makeVM()
    do {
      try vm.evaluate(source, chunkName: "work.lua", in: sandbox)
      Issue.record("expected the instruction limit", sourceLocation: sourceLocation)
    } catch let LuaError.instructionLimit(limit, message, _) {
      #expect(limit == Self.budget, sourceLocation: sourceLocation)
      #expect(message.hasPrefix("work.lua:"), sourceLocation: sourceLocation)
      #expect(
        message.hasSuffix(": instruction limit of \(Self.budget) exceeded"),
        sourceLocation: sourceLocation)
    } catch {
      Issue.record("expected the instruction limit, got \(error)", sourceLocation: sourceLocation)
    }
    #expect(try vm.evaluate("return 1 + 1", in: sandbox) == [2], sourceLocation: sourceLocation)
  }

  @Test func repeatingNothingAnswersAtOnce() throws {
    let (vm, sandbox) = try makeVM()
    let results = try vm.evaluate(
      "return string.rep('', math.maxinteger), string.rep('', 5, ''), ('x'):rep(3, ',')",
      in: sandbox)
    #expect(results == ["", "", "x,x,x"])
  }

  @Test func repeatingPastTheCapIsTheMemoryError() throws {
    let (vm, sandbox) = try makeVM(instructions: nil)
    #expect(throws: LuaError.memoryLimit(limit: Self.cap)) {
      try vm.evaluate("return string.rep('x', 1 << 30)", in: sandbox)
    }
  }

  @Test func repeatingPastWhatAStringHoldsIsLuasOwnErrorCaughtByPcall() throws {
    // Lua 5.4.4 makes no string longer than INT_MAX bytes: its error comes before any charge
    // or allocation, in its words, and a pcall catches it.
    let (vm, sandbox) = try makeVM()
    let results = try vm.evaluate(
      """
      local ok, message = pcall(string.rep, 'x', 1 << 40)
      return ok, message, pcall(string.rep, 'ab', math.maxinteger, ',')
      """,
      in: sandbox)
    #expect(results == [false, "resulting string too large", false, "resulting string too large"])
  }

  @Test func movingAnEndlessRangeStopsAtTheBudget() throws {
    try expectStopsAtTheBudget("table.move({}, 1, math.maxinteger, 1)")
  }

  @Test func unpackingAndConcatenatingAreCharged() throws {
    try expectStopsAtTheBudget("""
      local t = {}
      for i = 1, 1000 do t[i] = 'x' end
      while true do local s = table.concat(t) end
      """)
  }

  @Test func quadraticInsertsStopAtTheBudget() throws {
    try expectStopsAtTheBudget("""
      local t = {}
      for i = 1, 1e9 do table.insert(t, 1, i) end
      """)
  }

  @Test func buildingStringsInCIsChargedByTheBytes() throws {
    // Each `upper` copies a megabyte in C with a handful of instructions: without charging the
    // bytes, the budget would allow some 200,000 copies (200 GB).
    try expectStopsAtTheBudget("""
      local s = ('x'):rep(1 << 20)
      for i = 1, 1e9 do local u = s:upper() end
      """)
  }

  @Test func workNoCountSeesStopsAtTheTimeLimit() throws {
    // Comparing two equal long strings is one instruction that reads both: the budget allows
    // ten million of them. The time limit stops the call.
    let vm = try LuaVM(limits: LuaLimits(memory: 64 << 20, instructions: 10_000_000, seconds: nil))
    let sandbox = try vm.makeSandbox()
    // The strings are made in a call of their own, with no time limit: on a slow machine (or
    // under ThreadSanitizer) making them could take the 0.2 s, and the stop would be there.
    try vm.evaluate("a, b = ('x'):rep(4 << 20), ('x'):rep(4 << 20) .. ''", in: sandbox)
    vm.limits.seconds = 0.2
    let started = ContinuousClock.now
    do {
      try vm.evaluate("""
        local a, b, same = a, b, 0
        while true do if a == b then same = same + 1 end end
        """, chunkName: "compare.lua", in: sandbox)
      Issue.record("expected the time limit")
    } catch let LuaError.timeLimit(seconds, message, _) {
      #expect(seconds == 0.2)
      #expect(message == "compare.lua:2: time limit of 0.2 seconds exceeded")
    } catch {
      Issue.record("expected the time limit, got \(error)")
    }
    // Not a timed test: an upper bound far above the limit, only to tell "stopped" from "ran
    // the whole budget" (some 40 TB compared).
    #expect(ContinuousClock.now - started < .seconds(60))
    #expect(try vm.evaluate("return 1 + 1", in: sandbox) == [2])
    // A coroutine's call and a call with no instruction budget stop too.
    vm.limits.instructions = nil
    #expect {
      try vm.evaluate("coroutine.wrap(function() while true do end end)()", in: sandbox)
    } throws: { error in
      if case .timeLimit = error as? LuaError { return true } else { return false }
    }
  }

  @Test func aFinalizerCannotBeSet() throws {
    let (vm, sandbox) = try makeVM()
    for metatable in [
      "{ __gc = function() while true do end end }",
      "{ __gc = true }",  // a placeholder, replaced by a function later, marks the table too
    ] {
      #expect {
        try vm.evaluate("setmetatable({}, \(metatable))", chunkName: "gc.lua", in: sandbox)
      } throws: { error in
        (error as? LuaError)?.message == """
          gc.lua:1: setmetatable: __gc is not allowed (a finalizer would run outside the \
          instruction budget); release resources explicitly instead
          """
      }
    }
    // A metatable without __gc is fine, and adding __gc to it later marks nothing.
    let results = try vm.evaluate("""
      local mt = {}
      local t = setmetatable({}, mt)
      mt.__gc = function() while true do end end
      t = nil
      return getmetatable(setmetatable({}, { __index = { a = 1 } })).__index.a
      """, in: sandbox)
    #expect(results == [1])
  }

  @Test func nestedCoroutineClosesAreAnErrorNotACrash() throws {
    // Lua 5.4.4 overflows the C stack here (each close of a coroutine runs its __close
    // handler, which closes the previous one, and nothing counts the depth).
    let (vm, sandbox) = try makeVM(memory: 64 << 20, instructions: nil)
    let results = try vm.evaluate("""
      local coro = false
      for i = 1, 20000 do
        local previous = coro
        coro = coroutine.create(function()
          local cc <close> = setmetatable({}, { __close = function()
            if previous then assert(coroutine.close(previous)) end
          end })
          coroutine.yield()
        end)
        assert(coroutine.resume(coro))
      end
      local ok, message = coroutine.close(coro)
      return ok, message:match('coroutine%.close: nested more than %d+ deep') ~= nil
      """, chunkName: "close.lua", in: sandbox)
    #expect(results == [false, true])
  }

  @Test func anErrorObjectThatLoopsInTostringIsDescribedWithinTheBudget() throws {
    let (vm, sandbox) = try makeVM()
    do {
      try vm.evaluate(
        "error(setmetatable({}, { __tostring = function() while true do end end }))",
        chunkName: "err.lua", in: sandbox)
      Issue.record("expected an error")
    } catch let LuaError.instructionLimit(_, message, _) {
      #expect(message == "(error object is a table value)")
    } catch {
      Issue.record("expected the instruction limit, got \(error)")
    }
    #expect(try vm.evaluate("return 1", in: sandbox) == [1])
  }

  @Test func anErrorObjectThatAllocatesInTostringStaysUnderTheCap() throws {
    let (vm, sandbox) = try makeVM(instructions: nil)
    #expect {
      try vm.evaluate("""
        error(setmetatable({}, { __tostring = function()
          local t = {}
          while true do t[#t + 1] = ('x'):rep(1000) .. #t end
        end }))
        """, chunkName: "err.lua", in: sandbox)
    } throws: { error in
      (error as? LuaError)?.message == "(error object is a table value)"
    }
    // The report is built without the cap (it must not fail), and is bounded instead.
    #expect(vm.memoryHeld <= Self.cap + Self.reportSlack)
    // A __tostring that works is used.
    #expect {
      try vm.evaluate(
        "error(setmetatable({}, { __tostring = function() return 'described' end }))",
        chunkName: "err.lua", in: sandbox)
    } throws: { error in (error as? LuaError)?.message == "described" }
  }

  /// A coroutine's error object is described by its `__tostring` as a call's is (an effect's
  /// error read `(error object is a table value)` where the same error in a reducer read its
  /// own words), under the same budget and cap, and a `__tostring` that fails is passed over.
  @Test(arguments: [
    ("return 'described'", "described"),
    ("while true do end", "(error object is a table value)"),
    ("local t = {} while true do t[#t + 1] = ('x'):rep(1000) .. #t end",
     "(error object is a table value)"),
    ("error('inner')", "(error object is a table value)"),
    ("return 42", "(error object is a table value)"),
  ])
  func aCoroutinesErrorObjectIsDescribedUnderTheLimits(
    _ body: String, _ expected: String
  ) throws {
    let (vm, sandbox) = try makeVM()
    let function = try vm.evaluate(
      "return function() error(setmetatable({}, { __tostring = function() \(body) end })) end",
      chunkName: "err.lua", in: sandbox)[0]
    guard case let .function(reference) = function else {
      Issue.record("expected a function, got \(function)")
      return
    }
    for closing in [false, true] {
      let coroutine = try vm.makeCoroutine(reference)
      do {
        _ = try vm.resume(coroutine)
        Issue.record("expected an error")
      } catch {
        #expect(error.message == expected, "\(error)")
        // Stopped by the budget, counted on the thread the description ran on (not by the
        // time limit, seconds later).
        if case .timeLimit = error { Issue.record("stopped by the time limit: \(error)") }
      }
      if closing { try? vm.close(coroutine) }
      #expect(vm.memoryHeld <= Self.cap + Self.reportSlack)
    }
    #expect(try vm.evaluate("return 1 + 1", in: sandbox) == [2])
  }

  @Test func aHugeErrorMessageIsCut() throws {
    let (vm, sandbox) = try makeVM()
    do {
      try vm.evaluate("error(string.rep('x', 1000000), 0)", in: sandbox)
      Issue.record("expected an error")
    } catch {
      #expect(error.message == String(repeating: "x", count: 16 * 1024) + "... (983616 more bytes)")
    }
  }

  @Test func closeHandlersOfAFailedCallRunUnderTheCap() throws {
    let (vm, sandbox) = try makeVM(instructions: nil)
    #expect(throws: LuaError.memoryLimit(limit: Self.cap)) {
      try vm.evaluate("""
        local hog <close> = setmetatable({}, { __close = function()
          local t = {}
          while true do t[#t + 1] = { 1, 2, 3 } end
        end })
        error('fails, then closes')
        """, in: sandbox)
    }
    #expect(vm.memoryHeld <= Self.cap)
  }

  @Test func freeBlocksOfEverySizeStayUnderTheCapAndAreReused() throws {
    // Each round fills the cap with blocks of one size, then drops them. A pool that kept every
    // size's free blocks for that size alone would hold several caps by the end, or, counting
    // them against the cap, leave later rounds almost no room.
    let (vm, sandbox) = try makeVM(memory: 4 << 20, instructions: nil)
    let results = try vm.evaluate("""
      local least = math.huge
      for size = 1, 230, 32 do
        local t = {}
        local ok = pcall(function()
          for i = 1, 1e7 do t[i] = string.rep('x', size) .. i end
        end)
        assert(not ok)
        least = math.min(least, #t)
        t = nil
      end
      return least
      """, chunkName: "pool.lua", in: sandbox)
    // The largest strings here take 256-byte blocks: 4 MiB holds about 16,000 of them.
    #expect((results.first?.intValue ?? 0) > 8_000)
    #expect(vm.memoryHeld <= 4 << 20)
  }
}
