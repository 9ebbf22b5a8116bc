import CLua
import Foundation
import LuaSupport
import Testing

@testable import LuaKit

@Suite struct LuaSandboxTests {
  let vm: LuaVM
  let sandbox: LuaSandbox
  let printed: PrintedLines

  final class PrintedLines: @unchecked Sendable { var lines: [String] = [] }

  init() throws {
    vm = try LuaVM()
    let printed = PrintedLines()
    self.printed = printed
    sandbox = try vm.makeSandbox(.init(print: { printed.lines.append($0) }))
  }

  private func run(_ source: String) throws -> [LuaValue] {
    try vm.evaluate(source, chunkName: "feature.lua", in: sandbox)
  }

  @Test(arguments: [
    "io", "os", "debug", "package", "dofile", "loadfile", "collectgarbage", "loadstring",
  ])
  func removedGlobalsAreAbsent(name: String) throws {
    #expect(try run("return \(name)") == [nil])
    #expect(try run("return _G.\(name)") == [nil])
    #expect(try run("return _ENV['\(name)']") == [nil])
  }

  @Test func theSafeLibraryIsThere() throws {
    let results = try run(
      """
      return string.format('%d-%s', 1, 'a'), table.concat({ 'x', 'y' }, ','), math.floor(2.5),
        utf8.char(72), select('#', 1, 2), coroutine.isyieldable()
      """)
    #expect(results == ["1-a", "x,y", 2, "H", 2, false])
  }

  @Test func nondeterministicFunctionsAreAbsent() throws {
    #expect(try run("return math.random, math.randomseed, os") == [nil, nil, nil])
  }

  @Test func stringDumpIsUnreachableEvenThroughStringValues() throws {
    #expect(try run("return string.dump, ('').dump, ('x').dump") == [nil, nil, nil])
  }

  @Test func stringsFindTheirMethodsInTheSandboxesString() throws {
    // As in plain Lua: the string metatable's __index is `string`, so a function added to
    // `string` is a method of every string.
    #expect(try run("return getmetatable('').__index == string") == [true])
    #expect(
      try run("function string.shout(s) return s:upper() .. '!' end return ('hey'):shout()")
        == ["HEY!"])
  }

  @Test func theGlobalsAreTheSandboxNotTheHost() throws {
    try vm.setGlobal("secret", "host only")
    #expect(try run("return secret, _G.secret, rawget(_G, 'secret')") == [nil, nil, nil])
    #expect(try run("return getmetatable(_G), getmetatable(_ENV)") == [nil, nil])
    #expect(try run("return load('return secret')()") == [nil])
    #expect(try run("return _G == _ENV") == [true])
  }

  @Test func metatablesLeadNowhere() throws {
    let results = try run(
      """
      local found = {}
      for _, value in ipairs({ '', 1, true, print, coroutine.create(print), {} }) do
        local meta = getmetatable(value)
        if meta ~= nil then found[#found + 1] = type(value) .. '=' .. tostring(meta) end
      end
      return table.concat(found, ',')
      """)
    #expect(results.count == 1)  // only strings have one: Lua's, whose __index is `string`
    #expect(results.first?.stringValue?.hasPrefix("string=table: ") == true)
  }

  @Test func bytecodeIsRefusedByLoad() throws {
    let bytecode = try compiledBytecode("return 'pwned'")
    let viaSandbox = try vm.call(
      try vm.load("return load(...)", chunkName: "feature.lua", in: sandbox),
      .string(LuaString(bytes: bytecode)))
    #expect(
      viaSandbox == [nil, "attempt to load a binary chunk (bytecode is refused in the sandbox)"])
    let forcedMode = try vm.call(
      try vm.load(
        "local code = ... return load(code, 'x', 'b')", chunkName: "feature.lua", in: sandbox),
      .string(LuaString(bytes: bytecode)))
    #expect(
      forcedMode == [nil, "attempt to load a binary chunk (bytecode is refused in the sandbox)"])
    // A text-only mode keeps Lua's own words.
    let textOnly = try vm.call(
      try vm.load(
        "local code = ... return load(code, 'x', 't')", chunkName: "feature.lua", in: sandbox),
      .string(LuaString(bytes: bytecode)))
    #expect(textOnly == [nil, "attempt to load a binary chunk (mode is 't')"])
    // From a reader function, in pieces: the same answer, with no traceback (the refusal is
    // not an error raised through the caller's message handler).
    let fromReader = try vm.call(
      try vm.load(
        """
        local code, given = ...
        return load(function()
          if given then return nil end
          given = true
          return code
        end)
        """, chunkName: "feature.lua", in: sandbox),
      .string(LuaString(bytes: bytecode)))
    #expect(
      fromReader == [nil, "attempt to load a binary chunk (bytecode is refused in the sandbox)"])
  }

  @Test func bytecodeIsRefusedByTheHostLoader() throws {
    let bytecode = try compiledBytecode("return 1")
    #expect {
      try vm.load(String(decoding: bytecode, as: UTF8.self), chunkName: "evil")
    } throws: { error in
      guard case let .syntax(message, _) = error as? LuaError else { return false }
      return message == "attempt to load a binary chunk (mode is 't')"
    }
  }

  /// A module's source is loaded as text whoever resolves it: only the package's own library
  /// (`LuaModuleSource.precompiled`) loads as bytecode.
  @Test func bytecodeIsRefusedAsAModule() throws {
    let bytecode = try compiledBytecode("return 'pwned'")
    let sandbox = try vm.makeSandbox(
      .init(modules: LuaModuleTable(["evil": String(decoding: bytecode, as: UTF8.self)])))
    #expect {
      try vm.evaluate("local m = require('evil') return m", chunkName: "feature.lua", in: sandbox)
    } throws: { error in
      (error as? LuaError)?.message == "feature.lua:1: attempt to load a binary chunk (mode is 't')"
    }
  }

  /// The bootstrap and a precompiled module load from bytecode, keeping the name they were
  /// compiled with, and an error in one names it and its line as from the source.
  @Test func aPrecompiledModuleLoadsAndNamesItsErrorsAsCompiled() throws {
    let module = LuaPrecompiledChunk(
      bytecode: try compiledBytecode(
        "return { fail = function() error('no') end, answer = 42 }", chunkName: "=library"))
    let sandbox = try vm.makeSandbox(
      .init(
        modules: LuaModuleTable(modules: [
          "library": LuaModuleSource(code: "", precompiled: module, chunkName: "ignored.lua")
        ])))
    #expect(
      try vm.evaluate("return require('library').answer", chunkName: "f.lua", in: sandbox) == [42])
    #expect {
      try vm.evaluate("require('library').fail()", chunkName: "f.lua", in: sandbox)
    } throws: { error in
      (error as? LuaError)?.message == "library:1: no"
    }
  }

  @Test func printGoesToTheHost() throws {
    _ = try run("print('a', 1, nil, true) print()")
    #expect(printed.lines == ["a\t1\tnil\ttrue", ""])
  }

  @Test func sandboxesDoNotShareGlobalsOrLibraries() throws {
    let other = try vm.makeSandbox()
    _ = try run("shared = 1 table.insert = nil math.floor = nil")
    #expect(
      try vm.evaluate("return shared, table.insert ~= nil, math.floor ~= nil", in: other)
        == [nil, true, true])
  }

  @Test func theStringTableIsTheVMsAsStringsReachIt() throws {
    // Strings reach `string` through the one metatable a VM has for them, so every sandbox of
    // the VM sees the same one, as every chunk of a plain Lua does.
    let other = try vm.makeSandbox()
    _ = try run("function string.twice(s) return s .. s end")
    #expect(
      try vm.evaluate("return ('ab'):twice(), string.twice('c')", in: other) == ["abab", "cc"])
  }

  /// `require`'s argument is read as Lua's luaL_checkstring reads it: a number is its string,
  /// and the error for anything else says what it got, `no value` included.
  @Test func requireReadsItsArgumentAsLuaDoes() throws {
    let sandbox = try vm.makeSandbox(
      .init(modules: LuaModuleTable(["5": "return 'five'", "2.5": "return 'two and a half'"])))
    #expect(
      try vm.evaluate("return require(5), require(2.5)", in: sandbox) == ["five", "two and a half"])
    #expect(
      try vm.evaluate(
        "return select(2, pcall(require)), select(2, pcall(require, nil))", in: sandbox)
        == [
          "bad argument #1 to 'require' (string expected, got no value)",
          "bad argument #1 to 'require' (string expected, got nil)",
        ])
  }

  @Test func requireIsRefusedWhenNoModulesAreAllowed() throws {
    #expect {
      try run("require('json')")
    } throws: { error in
      (error as? LuaError)?.message
        == "feature.lua:1: module 'json' not found: this sandbox allows no modules"
    }
  }

  @Test func requireLoadsAllowedModulesOnceAndOnlyThose() throws {
    let counter = PrintedLines()
    let sandbox = try vm.makeSandbox(
      .init(
        print: { counter.lines.append($0) },
        modules: LuaModuleTable(["greeting": "print('loaded') return { text = 'hello' }"])))
    let results = try vm.evaluate(
      "return require('greeting').text, require('greeting') == require('greeting')",
      chunkName: "feature.lua", in: sandbox)
    #expect(results == ["hello", true])
    #expect(counter.lines == ["loaded"])
    #expect {
      try vm.evaluate("require('os')", chunkName: "feature.lua", in: sandbox)
    } throws: { error in
      (error as? LuaError)?.message
        == "feature.lua:1: module 'os' not found: the allowed modules are 'greeting'"
    }
  }

  @Test func requireFindsSiblingFilesButNothingOutside() throws {
    let root = FileManager.default.temporaryDirectory
      .appendingPathComponent("sandbox-\(UUID().uuidString)")
    let features = root.appendingPathComponent("features")
    try FileManager.default.createDirectory(
      at: features.appendingPathComponent("lib"), withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: root) }
    try "return { name = 'todo' }".write(
      to: features.appendingPathComponent("todo.lua"), atomically: true, encoding: .utf8)
    try "return 'strings'".write(
      to: features.appendingPathComponent("lib/strings.lua"), atomically: true, encoding: .utf8)
    try "return 'secret'".write(
      to: root.appendingPathComponent("secret.lua"), atomically: true, encoding: .utf8)
    try FileManager.default.createSymbolicLink(
      at: features.appendingPathComponent("link.lua"),
      withDestinationURL: root.appendingPathComponent("secret.lua"))
    let sandbox = try vm.makeSandbox(.init(modules: LuaModuleDirectories([features])))
    func run(_ source: String) throws -> [LuaValue] {
      try vm.evaluate(source, chunkName: "feature.lua", in: sandbox)
    }
    #expect(try run("return require('todo').name, require('lib.strings')") == ["todo", "strings"])
    #expect {
      try run("require('../secret')")
    } throws: { error in
      (error as? LuaError)?.message == "feature.lua:1: require: invalid module name '../secret': "
        + "use words of letters, digits, '_' or '-' joined by dots"
    }
    #expect {
      try run("require('link')")
    } throws: { error in
      (error as? LuaError)?.message.hasPrefix(
        "feature.lua:1: require: module 'link' resolves to ") == true
    }
    #expect {
      try run("require('missing')")
    } throws: { error in
      (error as? LuaError)?.message == "feature.lua:1: module 'missing' not found: no file '"
        + features.appendingPathComponent("missing.lua").path + "'"
    }
  }

  @Test func syntaxErrorsInRequiredModulesNameTheModuleFile() throws {
    let sandbox = try vm.makeSandbox(.init(modules: LuaModuleTable(["broken": "return {"])))
    #expect {
      try vm.evaluate("require('broken')", chunkName: "feature.lua", in: sandbox)
    } throws: { error in
      (error as? LuaError)?.message == "feature.lua:1: broken.lua:1: unexpected symbol near <eof>"
    }
  }

  /// Real Lua 5.4 bytecode, made with `lua_dump` on a separate, unsandboxed state.
  private func compiledBytecode(_ source: String, chunkName: String = "?") throws -> [UInt8] {
    let bytes = try LuaPrecompiledChunk(compiling: source, chunkName: chunkName).bytecode
    #expect(bytes.first == 0x1B)
    return bytes
  }
}
