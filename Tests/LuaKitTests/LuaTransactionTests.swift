import LuaKit
import Testing

/// The transaction engine as any embedder of LuaKit uses it, with no feature above it: a call
/// on a state through its proxy commits or rolls back every write, says whether it wrote and
/// where, and refuses a state left out of shape.
@Suite struct LuaTransactionTests {
  /// A VM holding `state`, and a transaction call of `body` (Lua taking `state, argument`).
  struct Engine {
    let vm: LuaVM
    let state: LuaReference
    let proxy: LuaReference
    let call: LuaTransactionCall
    let kept: [LuaReference]

    init(state: LuaValue, body: String) throws {
      vm = try LuaVM()
      self.state = try vm.reference(to: state)
      proxy = try vm.transactionalProxy(of: self.state)
      let function = try vm.load("local state, argument = ... " + body, chunkName: "body")
      let context = try vm.reference(to: [:])
      call = try LuaTransactionCall(function: function, state: proxy, context: context, in: vm)
      kept = [function, context]
    }

    func run(_ argument: LuaValue) throws(LuaError) -> LuaValue {
      try vm.callTransaction(call, argument: argument)
    }

    var value: LuaValue { get throws { try vm.value(of: state) } }
  }

  @Test func aCommittedCallKeepsItsWritesAndSaysWhere() throws {
    let engine = try Engine(
      state: ["n": 1, "list": [1, 2]],
      body: "state.n = state.n + argument table.insert(state.list, argument) return 'done'")
    #expect(try engine.run(5) == "done")
    #expect(engine.vm.transactionWrote)
    let changes = try engine.vm.transactionDifferences(root: engine.state)
    #expect(changes.map(\.path).sorted() == ["list[3]", "n"])
    engine.vm.commitTransaction()
    #expect(try engine.value == ["n": 6, "list": [1, 2, 5]])
  }

  @Test func aFailedCallLeavesTheStateAsItWas() throws {
    let engine = try Engine(
      state: ["n": 1, "nested": ["a": "b"]],
      body: "state.n = 2 state.nested.a = 'c' state.added = {} error('half way')")
    #expect(throws: LuaError.self) { try engine.run(.nil) }
    #expect(try engine.value == ["n": 1, "nested": ["a": "b"]])
    #expect(!engine.vm.transactionWrote)
  }

  @Test func anExplicitRollbackUndoesACallThatSucceeded() throws {
    let engine = try Engine(state: ["n": 1], body: "state.n = argument")
    _ = try engine.run(7)
    engine.vm.rollbackTransaction()
    #expect(try engine.value == ["n": 1])
  }

  @Test func aCallThatOnlyReadsWroteNothing() throws {
    let engine = try Engine(state: ["n": 1], body: "return state.n")
    #expect(try engine.run(.nil) == 1)
    #expect(!engine.vm.transactionWrote)
    #expect(try engine.vm.transactionDifferences(root: engine.state).isEmpty)
    engine.vm.commitTransaction()
  }

  /// A journaled table is bookkeeping beside a state: storing one in the state is refused (a
  /// change to it would not count as a change of the state).
  @Test func aJournaledTableCannotBeStoredInTheState() throws {
    let vm = try LuaVM()
    let state = try vm.reference(to: ["n": 1])
    let proxy = try vm.transactionalProxy(of: state)
    let kept = (
      try vm.load(
        "local state, make = ... state.n = 2 state.book = make()", chunkName: "body"),
      try vm.reference(to: [:]), vm.journaledTableFunction()
    )
    let call = try LuaTransactionCall(function: kept.0, state: proxy, context: kept.1, in: vm)
    let error = #expect(throws: LuaError.self) {
      try withExtendedLifetime(kept) {
        try vm.callTransaction(call, argument: .function(kept.2))
      }
    }
    #expect(
      error?.message.contains("a table of composable.journal cannot be stored in the state")
        == true, "\(String(describing: error))")
    #expect(try vm.value(of: state) == ["n": 1])
  }

  @Test func aStateInsideItselfIsRefusedAndRolledBack() throws {
    let engine = try Engine(state: ["n": 1], body: "state.n = 2 state.me = state")
    let error = #expect(throws: LuaError.self) { try engine.run(.nil) }
    #expect(error?.message.contains("state.me is state") == true, "\(String(describing: error))")
    #expect(try engine.value == ["n": 1])
  }

  @Test func eachCallIsItsOwnTransaction() throws {
    let engine = try Engine(
      state: ["n": 0], body: "state.n = state.n + 1 if argument then error('no') end")
    for fails in [false, true, false, true, false] {
      if fails {
        #expect(throws: LuaError.self) { try engine.run(true) }
      } else {
        _ = try engine.run(false)
        engine.vm.commitTransaction()
      }
    }
    #expect(try engine.value == ["n": 3])
  }
}
