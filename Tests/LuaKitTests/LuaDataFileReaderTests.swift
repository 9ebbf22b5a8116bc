import SeededRandom
import Testing

@testable import LuaKit

/// The data file reader runs nothing: it takes the literals the writer writes and a person
/// types, to the value Lua itself loads from them, and refuses everything else with the line,
/// the column and what it found.
@Suite struct LuaDataFileReaderTests {
  static func read(_ text: String) throws(LuaError) -> LuaValue {
    try LuaDataFile.read(Array(text.utf8), chunkName: "saved.lua")
  }

  /// What Lua itself returns from `text` run as a chunk (the test's own VM: trusted).
  static func loaded(_ text: String, in vm: LuaVM) throws -> LuaValue {
    try vm.evaluate(text, chunkName: "saved.lua").first ?? .nil
  }

  /// Each form that computes, calls, reads a global or hides a statement, with where it is
  /// refused (line:column) and what the error names.
  static let forbidden: [(source: String, at: String, found: String)] = [
    ("return print('x')", "1:8", "'print'"),
    ("return { a = print }", "1:14", "'print'"),
    ("return { os.exit() }", "1:10", "'os'"),
    ("return ('x'):rep(3)", "1:9", "the string \"x\""),
    ("return 6 * 7", "1:10", "'*'"),
    ("return 1 + 2", "1:10", "'+'"),
    ("return 1 - 2", "1:10", "'-'"),
    ("return 7 / 2", "1:10", "'/'"),
    ("return 7 // 2", "1:10", "'//'"),
    ("return 7 % 2", "1:10", "'%'"),
    ("return 2 ^ 8", "1:10", "'^'"),
    ("return 1 & 3", "1:10", "'&'"),
    ("return 1 | 3", "1:10", "'|'"),
    ("return 1 ~ 3", "1:10", "'~'"),
    ("return ~1", "1:8", "'~'"),
    ("return 1 << 3", "1:10", "'<<'"),
    ("return 1 >> 3", "1:10", "'>>'"),
    ("return 1 == 1", "1:10", "'=='"),
    ("return 1 ~= 1", "1:10", "'~='"),
    ("return 1 < 2", "1:10", "'<'"),
    ("return 1 <= 2", "1:10", "'<='"),
    ("return 1 > 2", "1:10", "'>'"),
    ("return 1 >= 2", "1:10", "'>='"),
    ("return true and 1", "1:13", "'and'"),
    ("return false or 1", "1:14", "'or'"),
    ("return not false", "1:8", "'not'"),
    ("return #'abc'", "1:8", "'#'"),
    ("return 'a' .. 'b'", "1:12", "'..'"),
    ("return - -1", "1:10", "'-'"),
    ("return -x", "1:9", "'x'"),
    ("return 2/1", "1:9", "'/'"),
    ("return 0.0/0", "1:11", "'/'"),
    ("return x", "1:8", "'x'"),
    ("return { x }", "1:10", "'x'"),
    ("return _G", "1:8", "'_G'"),
    ("return _ENV", "1:8", "'_ENV'"),
    ("return math.pi", "1:13", "'pi'"),
    ("return math.huge * 2", "1:18", "'*'"),
    ("return load('return 1')()", "1:8", "'load'"),
    ("return ...", "1:8", "'...'"),
    ("return function() end", "1:8", "'function'"),
    ("local s = 0 for i = 1, 10 do s = s + i end return s", "1:7", "'s'"),
    ("for i = 1, 3 do end return 1", "1:1", "'for'"),
    ("while true do end", "1:1", "'while'"),
    ("repeat until true return 1", "1:1", "'repeat'"),
    ("if true then end return 1", "1:1", "'if'"),
    ("do end return 1", "1:1", "'do'"),
    ("goto done ::done:: return 1", "1:1", "'goto'"),
    ("::top:: return 1", "1:1", "'::'"),
    ("x = 1 return x", "1:1", "'x'"),
    ("return 1; print('x')", "1:11", "'print'"),
    ("return {}; ; os.exit()", "1:14", "'os'"),
    ("return 1, 2", "1:9", "','"),
    ("return { [print] = 1 }", "1:11", "'print'"),
    ("return { a = { b = 1 }.b }", "1:23", "'.'"),
    ("return { f = (1) }", "1:15", "the number 1"),
    ("return (-9223372036854775807 - 2)", "1:32", "the number 2"),
    ("return { t = setmetatable({}, {}) }", "1:14", "'setmetatable'"),
    ("return { s = string.rep('x', 10) }", "1:14", "'string'"),
    ("return { s = [[a]] .. [[b]] }", "1:20", "'..'"),
    ("local shared = {} shared[1] = {} shared[1].x = 2 return shared[1]", "1:43", "'.'"),
    ("local shared = {} shared[1] = shared return 1", "1:38", "'return'"),
    ("local shared = { 1 } return 1", "1:18", "the number 1"),
    ("local t = {} return t", "1:7", "'t'"),
    ("shared[1] = {} return 1", "1:1", "'shared'"),
    ("return shared[1]", "1:8", "shared is not declared"),
    ("local shared = {} return shared[1]", "1:26", "shared[1] is not defined"),
    ("return {\n  a = 1,\n  b = f(),\n}", "3:7", "'f'"),
    ("return { [nil] = 1 }", "1:10", "a table key cannot be nil"),
    ("return { [0/0] = 1 }", "1:10", "a table key cannot be NaN"),
    ("return { [{}] = 1 }", "1:10", "a table key cannot be a table"),
    ("return 'unfinished", "1:8", "unfinished string"),
    ("return '\\q'", "1:9", "invalid escape sequence"),
    ("return '\\256'", "1:9", "decimal escape too large"),
    ("return '\\xZZ'", "1:9", "hexadecimal digit expected"),
    ("return '\\u{80000000}'", "1:9", "UTF-8 value too large"),
    ("return 3x", "1:8", "malformed number near '3x'"),
    ("return 0x", "1:8", "malformed number near '0x'"),
    ("return 1e", "1:8", "malformed number near '1e'"),
    ("return 1..2", "1:8", "malformed number near '1..2'"),
    ("return [=[x]]", "1:8", "unfinished long string"),
    ("return [=x", "1:8", "invalid long string delimiter"),
    ("return @", "1:8", "unexpected symbol: '@'"),
    ("return \u{1}", "1:8", "unexpected symbol: byte 1"),
    ("return -(1/0)", "1:10", "parentheses hold only 0/0"),
    ("return -(0/0", "1:13", "found the end of the file"),
    ("return -(0/1)", "1:12", "found the number 1"),
    ("return -(-0/0)", "1:10", "found '-'"),
  ]

  @Test func everyFormThatIsNotALiteralIsRefusedWithItsPlace() {
    for (source, at, found) in Self.forbidden {
      do {
        let value = try Self.read(source)
        Issue.record("read \(source) as \(value)")
      } catch {
        guard case let .syntax(message, _) = error else {
          Issue.record("\(source): \(error)")
          continue
        }
        #expect(message.hasPrefix("saved.lua:\(at): "), "\(source): \(message)")
        #expect(message.contains(found), "\(source): \(message)")
      }
    }
  }

  /// The message says what a data file is, for what a person might have meant as code.
  @Test func theMessageSaysWhatADataFileHolds() {
    #expect(
      LuaTableIdentityTests.error { try Self.read("return 6 * 7") }
        == "syntax error: saved.lua:1:10: expected the end of the file after the returned value, "
        + "found '*' (a data file holds literals only: no names, calls, operators or statements)")
    #expect(
      LuaTableIdentityTests.error { try Self.read("return { total = sum() }") }
        == "syntax error: saved.lua:1:18: expected a value, found 'sum' (a data file holds "
        + "literals only: no names, calls, operators or statements)")
    #expect(
      LuaTableIdentityTests.error { try Self.read(#"return { n = ("x"):rep(10) }"#) }
        == "syntax error: saved.lua:1:15: a data file holds literals only: no names, calls, "
        + "operators or statements; in parentheses it holds only the smallest integer, "
        + #"(-9223372036854775807 - 1); found the string "x""#)
  }

  /// Forms a person writes by hand, each read as Lua reads it.
  static let handWritten: [String] = [
    "return { 1, 2, 3 }",
    "return { 1; 2; 3; }",
    "return {}",
    "return",
    "return;",
    "",
    "-- only a comment",
    "return nil",
    "return true",
    "return { a = 1, ['b c'] = 2, [3] = 'three', [2.5] = 'half', [true] = false }",
    "return { [1] = 'a', 'b' }",
    "return { 'b', [1] = 'a' }",
    "return { nil, 2, nil }",
    "return { a = nil, b = 1 }",
    "return { [1.0] = 'one', [2] = 'two' }",
    "return { [-0.0] = 'zero' }",
    "return 0x10",
    "return 0xA.8p1",
    "return 0x.8",
    "return 0XFFFFFFFFFFFFFFFF",
    "return 0x7fffffffffffffff",
    "return 9223372036854775807",
    "return 9223372036854775808",
    "return -9223372036854775808",
    "return (-9223372036854775807 - 1)",
    "return ( - 9223372036854775807 - 1 )",
    "return 1e308",
    "return 1e400",
    "return -1e400",
    "return 1E-400",
    "return 5e-324",
    "return .5",
    "return 5.",
    "return 3.14e+2",
    "return -0.0",
    "return -0",
    "return 0/0",
    "return -0/0",
    "return -(0/0)",
    "return { - ( 0 / 0 ), 0/0 }",
    "return 1/0",
    "return -1/0",
    "return math.huge",
    "return -math.huge",
    "return { inf = math . huge }",
    "return \"it's\"",
    "return 'tab\\tnew\\nline\\r\\a\\b\\f\\v\\\\\\\"\\''",
    "return '\\65\\066\\0671'",
    "return '\\x41\\x7a\\xff'",
    "return '\\u{41}\\u{E9}\\u{20AC}\\u{1F600}\\u{7FFFFFFF}\\u{0}'",
    "return 'a\\z   \n   b'",
    "return 'line\\\nbreak'",
    "return 'crlf\\\r\nbreak'",
    "return [[long]]",
    "return [[\nfirst newline skipped]]",
    "return [==[ with ]] and ]=] inside ]==]",
    "return [[a\r\nb\rc\n\rd]]",
    "return --[[ a comment ]] { --[==[ another ]==] 1 } -- the end",
    "--[[\nheader\n]] return 'after a long comment'",
    "return {\r\n  a = 1,\r\n}\r\n",
    "return\t{\u{B}\u{C}1 }",
    "return { math = 1, shared = 2, local_ = 3 }",
    "local shared = {}\nshared[1] = { 'leaf' }\nshared[2] = { shared[1], shared[1] }\nreturn { a = shared[2], b = shared[2] }",
    "local shared = {}; shared[1] = {}; shared[1] = { 1 }; return shared[1];",
    "local shared = {} shared[7] = {} return { shared[7], shared[7], x = shared[7] }",
    "local shared = {} return { 1 }",
  ]

  @Test func formsAPersonWritesReadAsLuaLoadsThem() throws {
    let vm = try LuaVM()
    for source in Self.handWritten {
      let read = try Self.read(source)
      let expected = try Self.loaded(source, in: vm)
      #expect(read == expected, "\(source)")
      if case let .number(number) = expected, number == 0, number.sign == .minus {
        #expect(read.doubleValue?.sign == .minus, "\(source)")
      }
      // NaNs are equal to one another as values; Lua's `0/0` and `-(0/0)` differ in sign.
      for (got, lua) in zip(read.tableValue?.sequence ?? [read], expected.tableValue?.sequence ?? [expected]) {
        if case let .number(number) = lua, number.isNaN {
          #expect(got.doubleValue?.sign == number.sign, "\(source)")
        }
      }
    }
  }

  /// A UTF-8 byte order mark first (an editor's) is skipped, as `lua5.4` skips it when it loads
  /// the file; anywhere else it is what it is, an unexpected symbol.
  @Test func aByteOrderMarkFirstIsSkipped() throws {
    let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
    #expect(
      try LuaDataFile.read(mark + Array("return { n = 41 }".utf8), chunkName: "bom.lua")
        == ["n": 41])
    #expect(throws: LuaError.self) {
      try LuaDataFile.read(Array("return ".utf8) + mark + Array("{}".utf8), chunkName: "bom.lua")
    }
    #expect(throws: LuaError.self) {
      try LuaDataFile.read(mark + mark + Array("return {}".utf8), chunkName: "bom.lua")
    }
  }

  /// A table defined once and used at two places is one table again, at every level.
  /// An empty list (`json.array()`, a Swift `[]`) is written `{ nil }`, which Lua loads as an
  /// empty table and the reader as an empty list, so it stays a list through a save (and
  /// `json.encode` writes it `[]`); `{}` and a table with any key stay maps.
  @Test func anEmptyListKeepsItsKindThroughTheFile() throws {
    let value: LuaValue = ["list": .table(LuaTable(array: [])), "map": [:]]
    let text = try LuaDataFile.text(of: value)
    #expect(text.contains("list = { nil }"))
    let back = try LuaDataFile.read(Array(text.utf8), chunkName: "saved.lua")
    #expect(back.list.tableValue?.kind == .array)
    #expect(back.map.tableValue?.kind == .map)
    #expect(try Self.read("return { a = { nil, nil }, b = { x = nil, nil } }").a.tableValue?.kind == .array)
    #expect(try Self.read("return { b = { x = nil, nil } }").b.tableValue?.kind == .map)
    let vm = try LuaVM()
    #expect(try Self.loaded(text, in: vm) == back, "lua5.4's reading: the same value")
  }

  @Test func sharedTablesReadBackShared() throws {
    let value = try Self.read(
      "local shared = {}\nshared[1] = { 'leaf' }\nshared[2] = { shared[1], shared[1] }\n"
        + "return { a = shared[2], b = shared[2] }")
    #expect(value.a.tableValue?.identity == value.b.tableValue?.identity)
    #expect(value.a[1].tableValue?.identity == value.a[2].tableValue?.identity)
    #expect(value.sharedTables.count == 2)
  }

  /// Bytes that are not UTF-8 inside a string literal are the string's bytes, exactly, and a
  /// file need not be UTF-8 for it.
  @Test func bytesThatAreNotUTF8InAStringReadBackExactly() throws {
    let bytes = Array("return { s = '".utf8) + [0xFF, 0x80, 0xC3] + Array("', l = [[".utf8)
      + [0xFE, 0x00, 0x7F] + Array("]] }".utf8)
    let value = try LuaDataFile.read(bytes, chunkName: "raw")
    #expect(value.s == .string(LuaString(bytes: [0xFF, 0x80, 0xC3])))
    #expect(value.l == .string(LuaString(bytes: [0xFE, 0x00, 0x7F])))
  }

  /// The size is checked before anything is read.
  @Test func moreThanTheSizeLimitIsRefused() {
    #expect(LuaDataFile.maximumSize == 32 << 20)
    let bytes = [UInt8](repeating: 0x20, count: LuaDataFile.maximumSize + 1)
    #expect(
      LuaTableIdentityTests.error { try LuaDataFile.read(bytes, chunkName: "big.lua") }
        == "syntax error: big.lua: more than 33554432 bytes, the most a data file may hold")
    let fits = [UInt8](repeating: 0x20, count: LuaDataFile.maximumSize)
    #expect(LuaTableIdentityTests.error { try LuaDataFile.read(fits, chunkName: "big.lua") } == "no error")
  }

  /// At most 1,000,000 fields, counted over every table (and each shared table defined): one
  /// more is refused where it is, before it costs anything more. (The edge is tried with a
  /// limit of 1,000: the count is the same at any limit.)
  @Test func moreFieldsThanTheLimitAreRefused() throws {
    #expect(LuaDataFile.maximumFields == 1_000_000)
    func file(_ tables: Int) -> [UInt8] {
      Array("local shared = {}\nshared[1] = { 1, x = 2 }\nreturn {\n".utf8)
        + Array(repeating: Array("{},\n".utf8), count: tables).joined() + Array("}\n".utf8)
    }
    // shared[1] is one field and holds two: 997 tables make 1,000 fields.
    let atTheLimit = try LuaDataFile.read(file(997), chunkName: "many.lua", maximumFields: 1_000)
    #expect(atTheLimit.tableValue?.count == 997)
    #expect(
      LuaTableIdentityTests.error {
        try LuaDataFile.read(file(998), chunkName: "many.lua", maximumFields: 1_000)
      } == "syntax error: many.lua:1001:1: more than 1000 fields: more than a data file may hold")
  }

  /// 200 levels of tables are read, 201 are not, and a shared table counts at its deepest
  /// place, however the file spells it.
  @Test func depthIsLimitedAtTheSameLevelAsEverywhere() throws {
    func nested(_ levels: Int) -> String {
      "return " + String(repeating: "{ ", count: levels) + String(repeating: "}", count: levels)
    }
    #expect(try Self.read(nested(200)) != .nil)
    #expect(LuaTableIdentityTests.error { try Self.read(nested(201)) }.hasSuffix(
      "saved.lua:1:408: nested more than 200 levels deep"))
    let shared =
      "local shared = {}\nshared[1] = " + String(repeating: "{ ", count: 150)
      + String(repeating: "}", count: 150) + "\nreturn " + String(repeating: "{ ", count: 50)
      + "shared[1]" + String(repeating: " }", count: 50)
    #expect(try Self.read(shared) != .nil)
    let tooDeep = shared.replacingOccurrences(
      of: "return {", with: "return { {").replacingOccurrences(of: "] }", with: "] } }")
    #expect(LuaTableIdentityTests.error { try Self.read(tooDeep) }.hasSuffix(
      "saved.lua:3:110: nested more than 200 levels deep"))
    // A million open braces: refused at the limit, not a stack overflow.
    #expect(
      LuaTableIdentityTests.error { try Self.read("return " + String(repeating: "{", count: 1_000_000)) }
        .hasSuffix("nested more than 200 levels deep"))
  }
}
