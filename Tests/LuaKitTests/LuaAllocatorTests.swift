import Testing

@testable import LuaKit

/// Small blocks come from the state's own pool, large ones from malloc, and a block that grows
/// or shrinks across the line keeps its bytes.
@Suite struct LuaAllocatorTests {
  @Test func blocksKeepTheirContentsAcrossEverySize() throws {
    let vm = try LuaVM(limits: .unlimited)
    // Strings of every size from 1 to 600 bytes, and a table whose parts grow past 256 bytes
    // and shrink back as it is emptied.
    let result = try vm.evaluate("""
      local strings, sum = {}, 0
      for n = 1, 600 do strings[n] = string.rep("x", n - 1) .. tostring(n % 10) end
      for n = 1, 600 do sum = sum + #strings[n] + tonumber(strings[n]:sub(-1)) end
      local t = {}
      for i = 1, 100 do t[i] = i; t["k" .. i] = i end
      for i = 100, 1, -1 do t[i] = nil; t["k" .. i] = nil end
      collectgarbage()
      for i = 1, 10 do t["k" .. i] = i end
      local kept = 0
      for _, v in pairs(t) do kept = kept + v end
      return sum, kept
      """)
    #expect(result == [.integer(600 * 601 / 2 + 2700), 55])
  }

  @Test func memoryInUseComesBackAfterACollection() throws {
    let vm = try LuaVM(limits: .unlimited)
    vm.collectGarbage()
    let before = vm.memoryInUse
    try vm.evaluate(
      "garbage = {} for i = 1, 20000 do garbage[i] = { i, tostring(i), { x = i } } end")
    let during = vm.memoryInUse
    try vm.evaluate("garbage = nil")
    vm.collectGarbage()
    // About 5 MB held, all of it given back but Lua's own tables grown on the way (the string
    // table, which shrinks by halves).
    #expect(during - before > 4 << 20)
    #expect(vm.memoryInUse - before < 256 << 10)
  }

  @Test func theCapStillStopsSmallAllocations() throws {
    let vm = try LuaVM(limits: LuaLimits(memory: 4 << 20, instructions: nil))
    #expect(throws: LuaError.memoryLimit(limit: 4 << 20)) {
      try vm.evaluate("local t = {} while true do t[#t + 1] = { 1 } end")
    }
    #expect(try vm.evaluate("return 40 + 2") == [42])
  }
}
