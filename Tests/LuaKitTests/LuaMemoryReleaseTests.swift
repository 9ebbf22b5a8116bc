import LuaKit
import Testing

/// A large structure that became garbage is given back whole: new strings are carved from slabs
/// of their own, so the tables of a copied-away value do not share slabs with the strings the
/// copy keeps, and the slabs come from plain malloc, which leaves no gaps beside them.
@Suite struct LuaMemoryReleaseTests {
  static let todos = """
    local todos = {}
    for id = 1, 50000 do todos[id] = { id = id, title = "Todo " .. id, done = false } end
    return { todos = todos }
    """

  @Test func theValueACopyReplacedIsGivenBack() throws {
    let vm = try LuaVM()
    let made = try #require(try vm.callKeepingData(vm.load(Self.todos, chunkName: "todos")))
    vm.collectGarbage()
    let kept = vm.memoryHeld
    // What the copy replaced is free, but the pool still holds it.
    #expect(Double(kept) > Double(vm.memoryInUse) * 1.5)
    vm.collectGarbageAndReleaseMemory()
    // Slabs that keep a live block stay: 14-18% over what is in use for 10,000 to 100,000
    // todos, as blocks happen to fall (the bootstrap loaded from bytecode moved 50,000 from 1.144
    // to 1.156). Without the release it is 1.5 and more, the line above.
    #expect(Double(vm.memoryHeld) < Double(vm.memoryInUse) * 1.2)
    let state = try vm.value(of: made)
    #expect(state.todos.tableValue?.count == 50_000)
    #expect(state.todos[50_000] == ["id": 50_000, "title": "Todo 50000", "done": false])
  }
}
