import Testing

@testable import LuaKit

@Suite struct LuaCoroutineTests {
  @Test func swiftDrivesACoroutineThroughItsYields() throws {
    let vm = try LuaVM()
    let body = try vm.evaluate("""
      return function(a)
        local b = coroutine.yield(a + 1)
        local c = coroutine.yield(b * 2)
        return "done", c
      end
      """)[0]
    guard case let .function(function) = body else { Issue.record("expected a function"); return }
    let coroutine = try vm.makeCoroutine(function)
    #expect(try vm.resume(coroutine, with: [1]) == .yielded([2]))
    #expect(try vm.resume(coroutine, with: [10]) == .yielded([20]))
    #expect(try vm.resume(coroutine, with: ["x"]) == .returned(["done", "x"]))
    #expect(throws: LuaError.runtime(message: "cannot resume a dead coroutine", traceback: "")) {
      try vm.resume(coroutine)
    }
  }

  @Test func anErrorInsideCarriesTheCoroutinesTraceback() throws {
    let vm = try LuaVM()
    let function = try vm.load("coroutine.yield()\nerror('inside')", chunkName: "effect.lua")
    let coroutine = try vm.makeCoroutine(function)
    #expect(try vm.resume(coroutine) == .yielded([]))
    #expect {
      try vm.resume(coroutine)
    } throws: { error in
      guard case let .runtime(message, traceback) = error as? LuaError else { return false }
      return message == "effect.lua:2: inside" && traceback.contains("effect.lua:2")
    }
    #expect(try vm.evaluate("return 1 + 1") == [2])  // the VM goes on
  }

  @Test func theInstructionBudgetAppliesInsideCoroutines() throws {
    let vm = try LuaVM(limits: LuaLimits(memory: 8 << 20, instructions: 100_000))
    let function = try vm.load("while true do end", chunkName: "spin.lua")
    let coroutine = try vm.makeCoroutine(function)
    #expect {
      try vm.resume(coroutine)
    } throws: { error in
      if case .instructionLimit = error as? LuaError { return true }
      return false
    }
    #expect(try vm.evaluate("return 'alive'") == ["alive"])
  }
}
