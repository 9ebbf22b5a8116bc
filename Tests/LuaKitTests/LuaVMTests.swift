import Testing

@testable import LuaKit

@Suite struct LuaVMTests {
  @Test func evaluatesAndReturnsEveryResult() throws {
    let vm = try LuaVM()
    let results = try vm.evaluate("return 1, 2.5, 'three', true, nil")
    #expect(results == [1, 2.5, "three", true, nil])
  }

  @Test func integersAndFloatsStayDistinct() throws {
    let vm = try LuaVM()
    let results = try vm.evaluate("return 3, 3.0, 7 // 2, 7 / 2")
    #expect(results == [.integer(3), .number(3.0), .integer(3), .number(3.5)])
    #expect(results[0] != results[1])
  }

  @Test func callsALoadedFunctionWithArguments() throws {
    let vm = try LuaVM()
    let add = try vm.evaluate("return function(a, b) return a + b end")[0]
    guard case let .function(function) = add else { Issue.record("expected a function"); return }
    #expect(try vm.call(function, 2, 3) == [5])
    #expect(try vm.call(function, 2, 0.5) == [2.5])
  }

  @Test func runtimeErrorsNameTheChunkAndLineAndCarryATraceback() throws {
    let vm = try LuaVM()
    let source = """
      local function explode()
        error("boom")
      end
      explode()
      """
    #expect {
      try vm.evaluate(source, chunkName: "counter.lua")
    } throws: { error in
      guard case let .runtime(message, traceback) = error as? LuaError else { return false }
      return message == "counter.lua:2: boom"
        && traceback.hasPrefix("stack traceback:\n")
        && traceback.contains("counter.lua:2: in ")
        && traceback.contains("counter.lua:4: in main chunk")
    }
  }

  @Test func errorsWithNonStringValuesAreDescribed() throws {
    let vm = try LuaVM()
    #expect {
      try vm.evaluate("error({ code = 1 })")
    } throws: { error in
      (error as? LuaError)?.message == "{ code = 1 }"
    }
  }

  @Test func syntaxErrorsNameTheChunkAndLine() throws {
    let vm = try LuaVM()
    #expect(throws: LuaError.syntax(
      message: "feature.lua:2: unexpected symbol near '='", incompleteInput: false)) {
      try vm.load("local x = 1\nx = = 2", chunkName: "feature.lua")
    }
  }

  @Test func incompleteInputIsFlaggedForTheREPL() throws {
    let vm = try LuaVM()
    for source in ["function f()", "local t = {", "x = [[long", "if true then"] {
      #expect {
        try vm.load(source, chunkName: "stdin")
      } throws: { error in
        guard case let .syntax(_, incomplete) = error as? LuaError else { return false }
        return incomplete
      }
    }
    #expect {
      try vm.load("x = = 1", chunkName: "stdin")
    } throws: { error in
      guard case let .syntax(_, incomplete) = error as? LuaError else { return false }
      return !incomplete
    }
  }

  @Test func globalsOfTheTrustedEnvironment() throws {
    let vm = try LuaVM()
    try vm.setGlobal("answer", 42)
    #expect(try vm.evaluate("return answer + 1") == [43])
    try vm.evaluate("greeting = 'hi'")
    #expect(try vm.global("greeting") == "hi")
  }

  @Test func theStackIsBalancedAfterCallsAndErrors() throws {
    let vm = try LuaVM()
    let top = vm.stack.top
    _ = try vm.evaluate("return 1, 2, 3")
    _ = try? vm.evaluate("error('x')")
    _ = try? vm.load("syntax error here", chunkName: "x")
    #expect(vm.stack.top == top)
  }

  @Test func theStateIsClosedWhenTheVMGoes() throws {
    weak var weakVM: LuaVM?
    var reference: LuaReference?
    do {
      let vm = try LuaVM()
      weakVM = vm
      reference = try vm.reference(to: ["a": 1])
    }
    #expect(weakVM == nil)
    reference = nil  // releasing after the VM closed is harmless
    #expect(reference == nil)
  }
}
