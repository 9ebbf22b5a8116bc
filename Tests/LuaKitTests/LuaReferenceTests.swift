import CLua
import LuaSupport
import Testing

@testable import LuaKit

@Suite struct LuaReferenceTests {
  /// Counts the registry slots in use (the registry's array part holds references).
  private func registrySlots(_ vm: LuaVM) -> Int {
    vm.stack.guarded {
      lua_pushvalue(vm.L, LK_REGISTRYINDEX)
      var count = 0
      lua_pushnil(vm.L)
      while lua_next(vm.L, -2) != 0 {
        if lua_type(vm.L, -2) == LUA_TNUMBER, lua_type(vm.L, -1) != LUA_TNUMBER { count += 1 }
        lk_pop(vm.L, 1)
      }
      return count
    }
  }

  @Test func droppedReferencesAreReleasedOnTheNextEntry() throws {
    let vm = try LuaVM()
    let before = registrySlots(vm)
    var references: [LuaReference] = []
    for index in 0..<1000 { references.append(try vm.reference(to: ["index": .integer(index)])) }
    #expect(registrySlots(vm) == before + 1000)
    references.removeAll()
    #expect(registrySlots(vm) == before + 1000)  // queued, not yet freed
    vm.collectGarbage()  // any entry into the VM frees the dropped slots
    #expect(registrySlots(vm) == before)
  }

  @Test func aReferenceKeepsItsValueAlive() throws {
    let vm = try LuaVM()
    let reference = try vm.evaluate("return { items = { 1, 2, 3 } }")[0]
    vm.collectGarbage()
    #expect(reference.items == [1, 2, 3])
    let handle = try vm.reference(to: reference)
    vm.collectGarbage()
    #expect(try vm.value(of: handle) == reference)
  }

  @Test func functionsComeBackAsReferencesThatCompareByIdentity() throws {
    let vm = try LuaVM()
    let results = try vm.evaluate("local f = function() end return f, f, function() end")
    #expect(results[0] == results[1])
    #expect(results[0] != results[2])
    #expect(results[0].typeName == "function")
  }

  @Test func aReferenceFromAnotherVMIsRefused() throws {
    let first = try LuaVM()
    let second = try LuaVM()
    let function = try first.load("return 1", chunkName: "one")
    #expect(throws: LuaError.conversion(
      path: "value", message: "a function of another Lua VM cannot be used here")) {
      _ = try second.reference(to: .function(function))
    }
  }

  @Test func aTransactionCallOverReferencesOfAnotherVMIsRefused() throws {
    let first = try LuaVM()
    let second = try LuaVM()
    let function = try first.load("return 1", chunkName: "one")
    let table = try second.reference(to: [:])
    #expect(throws: LuaError.conversion(
      path: "", message: "a function of another Lua VM cannot be used here")) {
      _ = try LuaTransactionCall(function: function, state: table, context: table, in: second)
    }
    // Made over references of its own VM, it calls through their slots.
    let reduce = try second.load(
      "local state, argument = ... state.seen = argument.kind", chunkName: "r")
    let proxy = try second.transactionalProxy(of: table)
    let kind = try second.reference(to: "kind")
    let call = try LuaTransactionCall(
      function: reduce, state: proxy, context: table, tag: kind, in: second)
    _ = try second.callTransaction(call, argument: "go")  // a bare string is { kind = "go" }
    second.commitTransaction()
    #expect(try second.value(of: table) == ["seen": "go"])
    // A tagged call refuses what is not tagged, before calling anything.
    #expect(throws: LuaError.conversion(
      path: "argument", message: "expected a table with a string kind, or a string")) {
      _ = try second.callTransaction(call, argument: ["type": "go"])
    }
    #expect(try second.value(of: table) == ["seen": "go"])
  }
}
