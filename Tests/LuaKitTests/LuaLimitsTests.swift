import Testing

@testable import LuaKit

@Suite struct LuaLimitsTests {
  private func makeVM() throws -> (LuaVM, LuaSandbox) {
    let vm = try LuaVM(limits: LuaLimits(memory: 8 << 20, instructions: 1_000_000))
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
    let work = try vm.load(
      "local n = 0 for i = 1, 20000 do n = n + i end return n", chunkName: "work.lua", in: sandbox)
    for _ in 0..<100 { #expect(try vm.call(work) == [200_010_000]) }
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

  @Test func pcallCannotHideMemoryExhaustionForever() throws {
    let (vm, sandbox) = try makeVM()
    // The script catches the memory error and goes on: that is allowed, and the state is fine.
    let results = try vm.evaluate("""
      local ok = pcall(function() local t = {} while true do t[#t + 1] = {} end end)
      return ok, 'still here'
      """, in: sandbox)
    #expect(results == [false, "still here"])
  }

  @Test func theMemoryErrorDescribesTheCap() {
    #expect(LuaError.memoryLimit(limit: 8 << 20).description == "memory limit of 8 MiB exceeded")
  }

  @Test func swiftCodeIsNotCappedSoNoRaiseCrossesASwiftFrame() throws {
    let (vm, sandbox) = try makeVM()
    // A host function that builds a value bigger than the cap: Swift is not cut off mid-way.
    try vm.setGlobal("big", .function(vm.function(named: "big") { _ in
      [.table(LuaTable(array: (0..<200_000).map { .integer($0) }))]
    }))
    #expect(try vm.evaluate("return #big()") == [200_000])
    _ = sandbox
  }
}
