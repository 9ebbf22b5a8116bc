import Testing

@testable import LuaKit

@Suite struct LuaLimitsTests {
  private func makeVM(instructions: Int? = 1_000_000) throws -> (LuaVM, LuaSandbox) {
    let vm = try LuaVM(limits: LuaLimits(memory: 8 << 20, instructions: instructions))
    return (vm, try vm.makeSandbox())
  }

  private func expectInstructionLimit(
    _ source: String, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let (vm, sandbox) = try makeVM()
    #expect(sourceLocation: sourceLocation) {
      try vm.evaluate(source, chunkName: "reducer.lua", in: sandbox)
    } throws: { error in
      guard case let .instructionLimit(limit, message, traceback) = error as? LuaError else {
        return false
      }
      return limit == 1_000_000 && message.hasPrefix("reducer.lua:")
        && message.hasSuffix(": instruction limit of 1000000 exceeded")
        && traceback.contains("reducer.lua")
    }
    // The same VM goes on working.
    #expect(try vm.evaluate("return 1 + 1", in: sandbox) == [2], sourceLocation: sourceLocation)
  }

  @Test func anEndlessLoopStopsWithAClearError() throws {
    try expectInstructionLimit("while true do end")
  }

  @Test func pcallCannotSwallowTheStop() throws {
    try expectInstructionLimit("""
      while true do
        pcall(function() while true do end end)
      end
      """)
  }

  @Test func nestedPcallsCannotSwallowTheStopEither() throws {
    try expectInstructionLimit("""
      pcall(function()
        while true do pcall(function() while true do end end) end
      end)
      while true do end
      """)
  }

  @Test func coroutinesShareTheBudget() throws {
    try expectInstructionLimit("""
      while true do
        coroutine.resume(coroutine.create(function() while true do end end))
      end
      """)
  }

  @Test func coroutinesMadeByWrapShareTheBudget() throws {
    try expectInstructionLimit("""
      local spin = coroutine.wrap(function() while true do end end)
      spin()
      """)
  }

  @Test func aShortCallLeavesNoCountHookBehind() throws {
    let (vm, sandbox) = try makeVM()
    let sum = try vm.evaluate("local n = 0 for i = 1, 1000 do n = n + i end return n", in: sandbox)
    #expect(sum == [500_500])
    #expect(!vm.countsInstructionsNow)
    // Nor does a call stopped by the budget, which had it.
    #expect(throws: LuaError.self) { try vm.evaluate("while true do end", in: sandbox) }
    #expect(!vm.countsInstructionsNow)
  }

  @Test func theBudgetIsPerCall() throws {
    let (vm, sandbox) = try makeVM()
    // Each call spends 600,000 of its 1,000,000 (charged by table.move before it runs, so
    // counted from the first instruction, not only once the watchdog arms the hook): two calls
    // together would run out, ten in a row must not.
    let work = try vm.load(
      "local t = table.move({}, 1, 600000, 1) return 1", chunkName: "work.lua", in: sandbox)
    for _ in 0..<10 { #expect(try vm.call(work) == [1]) }
    // And the same work twice in one call does run out.
    #expect(throws: LuaError.self) {
      try vm.evaluate("table.move({}, 1, 600000, 1) table.move({}, 1, 600000, 1)", in: sandbox)
    }
  }

  @Test func theErrorDescriptionIsClear() throws {
    let (vm, sandbox) = try makeVM()
    do {
      try vm.evaluate("local x = 0\nwhile true do x = x + 1 end", chunkName: "reducer.lua", in: sandbox)
      Issue.record("expected the instruction limit")
    } catch {
      #expect(error.message == "reducer.lua:2: instruction limit of 1000000 exceeded")
    }
  }

  @Test func allocatingWithoutEndStopsAtTheMemoryCap() throws {
    let (vm, sandbox) = try makeVM()
    vm.limits.instructions = nil
    #expect(throws: LuaError.memoryLimit(limit: 8 << 20)) {
      try vm.evaluate(
        "local t = {} while true do t[#t + 1] = { 1, 2, 3 } end", chunkName: "hog.lua", in: sandbox)
    }
    #expect(try vm.evaluate("local t = {} for i = 1, 1000 do t[i] = {} end return #t", in: sandbox) == [1000])
    #expect(vm.memoryInUse < 8 << 20)
  }

  @Test func oneHugeAllocationStopsAtTheMemoryCap() throws {
    let (vm, sandbox) = try makeVM()
    #expect(throws: LuaError.memoryLimit(limit: 8 << 20)) {
      try vm.evaluate("return string.rep('x', 100 * 1024 * 1024)", in: sandbox)
    }
    #expect(try vm.evaluate("return #string.rep('x', 1024)", in: sandbox) == [1024])
  }

  @Test func aScriptMayCatchTheMemoryErrorAndGoOnUnderTheCap() throws {
    let (vm, sandbox) = try makeVM(instructions: nil)
    // Unlike the budget, the memory error can be caught: what failed is garbage, and the
    // script goes on, still under the cap.
    let results = try vm.evaluate("""
      local ok, message = pcall(function() local t = {} while true do t[#t + 1] = {} end end)
      local after = {}
      for i = 1, 1000 do after[i] = { i } end
      return ok, message, #after
      """, in: sandbox)
    #expect(results == [false, "not enough memory", 1000])
    #expect(vm.memoryHeld <= 8 << 20)
  }

  @Test func theMemoryErrorDescribesTheCap() {
    #expect(LuaError.memoryLimit(limit: 8 << 20).description == "memory limit of 8 MiB exceeded")
  }

  @Test func swiftCodeIsNotCappedSoNoRaiseCrossesASwiftFrame() throws {
    let (vm, sandbox) = try makeVM()
    // A host function that builds a value bigger than the cap (200,000 integers take about
    // 3.2 MiB in Lua; the cap here is 2 MiB): Swift is not cut off mid-way, and the script gets
    // all of it.
    vm.limits.memory = 2 << 20
    try vm.setGlobal("big", .function(vm.function(named: "big") { _ in
      [.table(LuaTable(array: (0..<200_000).map { .integer($0) }))]
    }))
    #expect(try vm.evaluate("local t = big() return #t, t[200000]") == [200_000, 199_999])
    #expect(vm.memoryHeld > 2 << 20)
    _ = sandbox
  }
}
