import CLua
import Foundation
import LuaSupport
import Testing

@testable import LuaKit

/// `lk_reads_only` (ReadingFunctions.c) tells a function that can only read its arguments from
/// its bytecode, so that `table.sort` may give it a state's real tables. What it trusts is
/// checked here against what it must not: every opcode of Lua 5.4 named by `luac5.4 -l` (the
/// C side numbers them itself), upvalues that could reach code, and a strings' metatable a
/// feature changed.
@Suite struct ReadingFunctionsTests {
  /// The opcodes a reading function may use, by the names `luac5.4 -l` prints.
  static let allowed: Set<String> = [
    "MOVE", "LOADI", "LOADF", "LOADK", "LOADKX", "LOADFALSE", "LFALSESKIP", "LOADTRUE", "LOADNIL",
    "GETUPVAL", "GETTABLE", "GETI", "GETFIELD", "ADDI", "ADDK", "SUBK", "MULK", "MODK", "POWK",
    "DIVK", "IDIVK", "BANDK", "BORK", "BXORK", "SHRI", "SHLI", "ADD", "SUB", "MUL", "MOD", "POW",
    "DIV", "IDIV", "BAND", "BOR", "BXOR", "SHL", "SHR", "MMBIN", "MMBINI", "MMBINK", "UNM", "BNOT",
    "NOT", "LEN", "CONCAT", "JMP", "EQ", "LT", "LE", "EQK", "EQI", "LTI", "LEI", "GTI", "GEI",
    "TEST", "TESTSET", "RETURN", "RETURN0", "RETURN1", "FORLOOP", "FORPREP", "VARARG",
    "VARARGPREP", "EXTRAARG",
  ]
  /// Lua 5.4's 83 opcodes.
  static let all: Set<String> = allowed.union([
    "SETUPVAL", "GETTABUP", "SETTABUP", "SETTABLE", "SETI", "SETFIELD", "NEWTABLE", "SELF",
    "CLOSE", "TBC", "CALL", "TAILCALL", "TFORPREP", "TFORCALL", "TFORLOOP", "SETLIST", "CLOSURE",
  ])

  /// Chunks that set the global `f`, together using every opcode but LOADKX (which needs more
  /// than 2^17 constants in one function, past what lk_reads_only looks at).
  static let samples = [
    "f = function(a, b) return a.n < b.n end",
    "f = function(a, b) if a.done ~= b.done then return not a.done end return a.t < b.t end",
    "f = function(a, b) return a[1] <= b[2] end",
    #"local k = "n"; f = function(a, b) return a[k] > b[k] end"#,
    """
    f = function(a, b)
      return a.x + 1 - b.y * 2 / 3 // 4 % 5 ^ 6 < (a.x & 7 | 8 ~ 9 << 1 >> 2) + a.x + b.x - a.x
        * b.x / a.x % b.x ^ a.x // b.x & a.x | b.x ~ a.x << b.x >> a.x
    end
    """,
    #"f = function(a, b) return -a.x < ~b.y and #a < #b and a.s .. b.s == "xy" end"#,
    """
    f = function(a, b)
      return a.x == 1 or a.x < 2 or a.x <= 3 or a.x > 4 or a.x >= 5 or a.x == b or a.x == 2.5
    end
    """,
    """
    f = function(a, b)
      local s, x, y, z = 0, nil, 1.5, 100000000000
      for i = 1, 3 do s = s + i end
      return s < a.n and y
    end
    """,
    "f = function(a, b, ...) local x = ... return x end",
    """
    f = function(a, b)
      local f, y = false, 2.0
      if a.x then return a.x + 1.5 < a.x - 1.5 end
      return (a.x ^ 2 ~ 3 | 1 << a.x) > a.x >> 1 or b.x or f or y
    end
    """,
    "f = function(a, b) end",
    "f = function(a, b) return a, b end",
    // Each of these may not read only.
    "f = function(a, b) return g < 1 end",
    "f = function(a, b) a.x = 1 return true end",
    "f = function(a, b) a[1] = 1 return true end",
    "f = function(a, b) a[b] = 1 return true end",
    "f = function(a, b) g = 1 return true end",
    "local u = 1; f = function(a, b) u = 2 return true end",
    "f = function(a, b) return {} ~= a end",
    "f = function(a, b) local t = { 1, 2, a } return t end",
    "f = function(a, b) return a:m() end",
    "f = function(a, b) local r = a.f(b) return r end",
    "f = function(a, b) return a.f(b) end",
    "f = function(a, b) return function() end end",
    "f = function(a, b) local c <close> = nil return true end",
    "f = function(a, b) do local x = 1; a.g = function() return x end end return true end",
    "f = function(a, b) for k in a.n do end return true end",
    "f = function(a, b) local t = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, [0] = a, a, a, a } end",
    "local t = {}; f = function(a, b) return t[a] end",
    "local t = function() end; f = function(a, b) return t == a end",
    "f = print",
    "f = 1",
  ]

  /// The opcodes `luac5.4 -l` lists for the function `f` of `source` (its second function:
  /// the chunk is the first).
  private func opcodes(of source: String) throws -> [String] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/luac5.4")
    process.arguments = ["-l", "-p", "-"]
    let input = Pipe(), output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    input.fileHandleForWriting.write(Data(source.utf8))
    try input.fileHandleForWriting.close()
    let text = String(
      decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    var functions: [[String]] = []
    for line in text.split(separator: "\n") {
      if line.hasPrefix("main <") || line.hasPrefix("function <") {
        functions.append([])
        continue
      }
      let fields = line.split(separator: "\t", omittingEmptySubsequences: true)
      if fields.count >= 3, fields[1].hasPrefix("["), !functions.isEmpty {
        functions[functions.count - 1].append(String(fields[2]))
      }
    }
    return functions.count > 1 ? functions[1].map { $0.trimmingCharacters(in: .whitespaces) } : []
  }

  /// Whether `f` (a global of `vm`) reads only, by lk_reads_only.
  private func readsOnly(_ vm: LuaVM) -> Bool {
    vm.stack.guarded {
      lua_getglobal(vm.L, "f")
      return lk_reads_only(vm.L, -1) != 0
    }
  }

  @Test func everyOpcodeIsJudgedAsLuacNamesIt() throws {
    var seen: Set<String> = []
    for source in Self.samples {
      let vm = try LuaVM(limits: .unlimited)
      try vm.evaluate(source)
      let names = try opcodes(of: source)
      seen.formUnion(names)
      let isFunction = try vm.evaluate("return type(f) == 'function'") == [.boolean(true)]
      let expected =
        isFunction && !names.isEmpty && names.allSatisfy(Self.allowed.contains)
        && !source.contains("local t =")
      #expect(readsOnly(vm) == expected, "\(source): \(names)")
    }
    #expect(seen.union(["LOADKX"]) == Self.all, "not covered: \(Self.all.subtracting(seen))")
  }

  @Test func upvaluesAreLookedAtWhenAsked() throws {
    let vm = try LuaVM(limits: .unlimited)
    try vm.evaluate(
      "local k = 'n'; f = function(a, b) return a[k] < b[k] end; set = function(v) k = v end")
    for (value, expected) in [
      ("'id'", true), ("1", true), ("true", true), ("nil", true), ("{}", false),
      ("print", false), ("coroutine.create(print)", false), ("'back'", true),
    ] {
      try vm.evaluate("set(\(value))")
      #expect(readsOnly(vm) == expected, "k = \(value)")
    }
  }

  @Test func aChangedStringMetatableIsNotTrusted() throws {
    let vm = try LuaVM(limits: .unlimited)
    try vm.evaluate("f = function(a, b) return a.s < 'x' end; m = getmetatable('')")
    #expect(readsOnly(vm))
    for (change, undo) in [
      ("m.__lt = function() return true end", "m.__lt = nil"),
      ("m.__concat = table.insert", "m.__concat = nil"),
      ("saved = m.__add; m.__add = rawset", "m.__add = saved"),
      ("saved = m.__index; m.__index = function() end", "m.__index = saved"),
      ("saved = m.__index; m.__index = {}", "m.__index = saved"),
      ("setmetatable(string, { __index = function() end })", "setmetatable(string, nil)"),
      ("m.__index.extra = print", "m.__index.extra = nil"),
    ] {
      try vm.evaluate(change)
      let trusted = readsOnly(vm)
      // A function added to the string table is only a value found there (no call can reach
      // it); every other change is a metamethod a reading function could start.
      #expect(trusted == change.hasPrefix("m.__index.extra"), "\(change)")
      try vm.evaluate(undo)
      #expect(readsOnly(vm), "after \(undo)")
    }
  }

  @Test func aLongFunctionIsNotLookedAt() throws {
    let vm = try LuaVM(limits: .unlimited)
    let body = (1...700).map { "a.x\($0) < b.x\($0)" }.joined(separator: " or ")
    try vm.evaluate("f = function(a, b) return \(body) end")
    #expect(!readsOnly(vm))
    try vm.evaluate(
      "f = function(a, b) return \((1...20).map { "a.x\($0) < b.x\($0)" }.joined(separator: " or ")) end"
    )
    #expect(readsOnly(vm))
  }
}
