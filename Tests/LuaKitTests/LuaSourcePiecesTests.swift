import LuaKit
import Testing

/// Lua's parser is not counted as it goes, and some sources cost it far more per byte than
/// others. Every load hands it the source in pieces and looks at the limits between two: the
/// host's own loads against the time limit, `load` and `require` inside a call against the
/// call's stop, budget and time. What is loaded is the same as whole.
@Suite struct LuaSourcePiecesTests {
  /// A source that takes Lua's parser tens of seconds: each of many names is looked up through
  /// 150 nested functions of 190 locals each.
  static let slowToParse: String = {
    var source = ""
    for depth in 0..<150 {
      let locals = (0..<190).map { "v\(depth)_\($0)" }.joined(separator: ",")
      source += "local function f\(depth)() local \(locals)\n"
    }
    let line = "z = " + Array(repeating: "undefinedname", count: 200).joined(separator: "+") + "\n"
    source += String(repeating: line, count: 5_000)
    source += String(repeating: "end\n", count: 150)
    return source + "return 1\n"
  }()

  @Test func aHostLoadEndsAtTheTimeLimit() throws {
    let vm = try LuaVM(limits: LuaLimits(memory: 256 << 20, instructions: nil, seconds: 0.3))
    do {
      _ = try vm.load(Self.slowToParse, chunkName: "slow.lua")
      Issue.record("expected the load to fail")
    } catch {
      #expect(
        error.message.contains(
          "reading this source took longer than the time limit of 0.3 seconds"),
        "\(error.message)")
    }
    #expect(try vm.evaluate("return 1 + 1") == [2], "the VM goes on")
  }

  @Test func loadInACallEndsAtTheTimeLimit() throws {
    let vm = try LuaVM(limits: LuaLimits(memory: 256 << 20, instructions: nil, seconds: 0.3))
    let sandbox = try vm.makeSandbox()
    let load = try vm.evaluate("return function(s) return pcall(load, s) end", in: sandbox)
    guard case let .function(function) = load.first else {
      Issue.record("expected a function")
      return
    }
    #expect(throws: LuaError.self) { try vm.call(function, .string(LuaString(Self.slowToParse))) }
    do {
      try vm.call(function, .string(LuaString(Self.slowToParse)))
    } catch {
      guard case .timeLimit = error else {
        Issue.record("expected the time limit, got \(error)")
        return
      }
    }
  }

  @Test func requireInACallEndsAtTheTimeLimit() throws {
    let vm = try LuaVM(limits: LuaLimits(memory: 256 << 20, instructions: nil, seconds: 0.3))
    let sandbox = try vm.makeSandbox(
      .init(print: { _ in }, modules: LuaModuleTable(["slow": Self.slowToParse])))
    do {
      try vm.evaluate("return pcall(require, 'slow')", in: sandbox)
      Issue.record("expected the time limit")
    } catch {
      guard case .timeLimit = error else {
        Issue.record("expected the time limit, got \(error)")
        return
      }
    }
  }

  /// Long strings, comments and names across many piece boundaries read as they do whole, from
  /// the host, from a string given to `load`, and from a reader function's long pieces.
  @Test func piecesReadAsTheWhole() throws {
    let vm = try LuaVM()
    let sandbox = try vm.makeSandbox()
    let long = String(repeating: "0123456789abcdef", count: 700)  // 11,200 bytes
    let source =
      "-- " + long + "\nlocal " + "name_" + long.prefix(300) + " = [[" + long + "]]\n"
      + "return #name_" + long.prefix(300) + ", name_" + long.prefix(300) + ":sub(-5)"
    #expect(try vm.evaluate(source, in: sandbox) == [11_200, "bcdef"])
    let viaLoad = """
      local s = string.rep("0123456789abcdef", 700)
      local f = load("local n" .. s:sub(1, 300) .. " = [[" .. s .. "]] return #n" .. s:sub(1, 300))
      return f()
      """
    #expect(try vm.evaluate(viaLoad, in: sandbox) == [11_200])
    let reader = """
      local piece = string.rep("x = x .. 'ab'\\n", 2000)
      local given = 0
      local f = load(function()
        given = given + 1
        if given <= 3 then return piece end
      end)
      x = ""
      f()
      return #x
      """
    #expect(try vm.evaluate(reader, in: sandbox) == [12_000])
  }
}
