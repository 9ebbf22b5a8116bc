import LuaKit
import Testing

/// `json.null` is a light userdata, a pointer value and not an object of its VM: the same value
/// in every VM. A state holding it (JSON decoded into it) could not be expected by a test, whose
/// VM is another one ("userdata: 0x0 belongs to another Lua VM"), nor given to a TestStore.
@Suite struct JSONNullAcrossVMsTests {
  /// A VM with `json` in scope, and what `code` returns there.
  static func evaluate(_ code: String, in vm: LuaVM) throws -> LuaValue {
    let sandbox = try vm.makeSandbox(.init(preloaded: ["json": .other(vm.jsonModule())]))
    return try vm.evaluate("local json = require('json')\n" + code, chunkName: "test.lua", in: sandbox)
      .first ?? .nil
  }

  @Test func nullFromOneVMIsNullInAnother() throws {
    let one = try LuaVM()
    let other = try LuaVM()
    let decoded = try Self.evaluate(#"return json.decode('{"a": null, "b": [1, null]}')"#, in: one)
    let expected = try Self.evaluate("return { a = json.null, b = { 1, json.null } }", in: other)
    #expect(decoded == expected)
    #expect(decoded.hashValue == expected.hashValue)
    // Pushed into the other VM, it is that VM's json.null.
    let check = try Self.evaluate(
      "return function(v) return v.a == json.null and v.b[2] == json.null end", in: other)
    guard case let .function(function) = check else {
      Issue.record("not a function: \(check)")
      return
    }
    #expect(try other.call(function, decoded).first == true)
  }

  /// `LuaValue.jsonNull`, made in Swift (a Swift test's expected state), is the null any VM
  /// decodes, and is pushed as that VM's json.null; `:test NAME.swift` writes it (it wrote
  /// `nil /* userdata */`, which no state equals: an attacker's finding).
  @Test func theNullMadeInSwiftIsJSONsNull() throws {
    let vm = try LuaVM()
    let decoded = try Self.evaluate(#"return json.decode('{"a": null, "b": [1, null]}')"#, in: vm)
    let expected: LuaValue = ["a": .jsonNull, "b": [1, .jsonNull]]
    #expect(decoded == expected)
    #expect(decoded.hashValue == expected.hashValue)
    #expect(LuaValue.jsonNull.description == "json.null")
    let check = try Self.evaluate(
      "return function(v) return v.a == json.null and v.b[2] == json.null end", in: vm)
    guard case let .function(function) = check else {
      Issue.record("not a function: \(check)")
      return
    }
    #expect(try vm.call(function, expected).first == true)
  }

  /// Every other value of a VM stays its own: a function, a coroutine, a table kept in Lua.
  @Test func otherValuesStayInTheirVM() throws {
    let one = try LuaVM()
    let other = try LuaVM()
    for code in ["return function() end", "return coroutine.create(function() end)"] {
      let value = try Self.evaluate(code, in: one)
      #expect(value != (try Self.evaluate(code, in: other)))
      #expect(throws: LuaError.self) { try other.setGlobal("x", value) }
    }
    // One function read twice in its own VM is one value.
    let pair = try Self.evaluate("local f = function() end return { f, f }", in: one)
    #expect(pair[1] == pair[2])
    #expect(pair[1] != .nil)
  }
}
