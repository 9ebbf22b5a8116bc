import Testing

@testable import LuaKit

@Suite struct LuaHostFunctionTests {
  struct Refusal: Error, CustomStringConvertible {
    var description: String { "the answer is no" }
  }

  @Test func luaCallsSwift() throws {
    let vm = try LuaVM()
    let double = vm.function(named: "double") { arguments in
      [.integer((arguments.first?.intValue ?? 0) * 2)]
    }
    try vm.setGlobal("double", .function(double))
    #expect(try vm.evaluate("return double(21)") == [42])
  }

  @Test func aSwiftErrorBecomesALuaErrorAtTheCallingLine() throws {
    let vm = try LuaVM()
    try vm.setGlobal("refuse", .function(vm.function(named: "refuse") { _ in throw Refusal() }))
    #expect {
      try vm.evaluate("local x = 1\nrefuse()", chunkName: "feature.lua")
    } throws: { error in
      (error as? LuaError)?.message == "feature.lua:2: refuse: the answer is no"
    }
  }

  @Test func luaCanCatchASwiftErrorAndGoOn() throws {
    let vm = try LuaVM()
    try vm.setGlobal("refuse", .function(vm.function(named: "refuse") { _ in throw Refusal() }))
    let results = try vm.evaluate(
      "local ok, message = pcall(function() refuse() end) return ok, message",
      chunkName: "feature.lua")
    #expect(results == [false, "feature.lua:1: refuse: the answer is no"])
  }

  @Test func hostFunctionsWorkInsideCoroutines() throws {
    let vm = try LuaVM()
    var seen: [LuaValue] = []
    try vm.setGlobal("record", .function(vm.function(named: "record") { arguments in
      seen.append(contentsOf: arguments)
      return [.integer(seen.count)]
    }))
    let results = try vm.evaluate("""
      local co = coroutine.wrap(function(a)
        local n = record(a)
        local b = coroutine.yield(n)
        return record(b)
      end)
      return co("first"), co("second")
      """)
    #expect(results == [1, 2])
    #expect(seen == ["first", "second"])
  }

  @Test func tablesArriveAsSnapshotsAndResultsAsLuaValues() throws {
    let vm = try LuaVM()
    try vm.setGlobal("describe", .function(vm.function(named: "describe") { arguments in
      [.string(LuaString(arguments[0].description)), ["kind": "map", "list": [1, 2]]]
    }))
    let results = try vm.evaluate(
      "local text, t = describe({ 1, 2, x = 'y' }) return text, t.kind, #t.list")
    #expect(results == ["{ [1] = 1, [2] = 2, x = \"y\" }", "map", 2])
  }

  @Test func theClosureIsReleasedWhenLuaCollectsTheFunction() throws {
    final class Token {}
    weak var weakToken: Token?
    let vm = try LuaVM()
    do {
      let token = Token()
      weakToken = token
      let function = vm.function(named: "f") { _ in _ = token; return [] }
      #expect(try vm.call(function) == [])
    }
    vm.collectGarbage()
    #expect(weakToken == nil)
  }
}
