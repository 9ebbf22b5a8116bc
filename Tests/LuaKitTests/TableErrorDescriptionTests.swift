import Testing

@testable import LuaKit

/// An error raised with a table and no `__tostring` is reported as the table, as Lua would write
/// it: `lua5.4` says `(error object is a table value)` for every one, so two different errors
/// read alike everywhere the host shows or compares them. Bounded, in one order whatever the
/// table's history, and with no metamethod run; a table with a `__tostring` keeps its own words.
@Suite struct TableErrorDescriptionTests {
  func message(_ source: String) throws -> String {
    let vm = try LuaVM(limits: LuaLimits(memory: 8 << 20, instructions: 1_000_000))
    let sandbox = try vm.makeSandbox()
    do {
      try vm.evaluate(source, chunkName: "err.lua", in: sandbox)
    } catch {
      return error.message
    }
    Issue.record("expected an error from \(source)")
    return ""
  }

  @Test(arguments: [
    ("error({ code = 404, path = '/x' })", #"{ code = 404, path = "/x" }"#),
    ("error({ 1, 2.5, 'three', true })", #"{ 1, 2.5, "three", true }"#),
    ("error({})", "{}"),
    ("error({ a = { b = { c = { d = 1 } } } })", "{ a = { b = { c = {…} } } }"),
    ("local t = {} t.self = t error(t)", "{ self = { self = { self = {…} } } }"),
    ("error({ ['end'] = 1, ['a b'] = 2, [1.5] = 3, [true] = 4, [false] = 5 })",
     #"{ [1.5] = 3, ["a b"] = 2, ["end"] = 1, [false] = 5, [true] = 4 }"#),
    ("error({ [1] = 'a', [3] = 'c' })", #"{ [1] = "a", [3] = "c" }"#),
    ("error({ nan = 0/0, other = -(0/0), big = math.huge, small = -math.huge })",
     "{ big = math.huge, nan = 0/0, other = -(0/0), small = -math.huge }"),
    ("error({ s = 'a\\n\\r\\t\"\\\\\\0' .. '12' })", #"{ s = "a\n\r\t\"\\\00012" }"#),
    ("error({ a = '\\255', b = '\\254', c = 'café' })", #"{ a = "\255", b = "\254", c = "café" }"#),
    ("error({ 0.1 + 0.2, 1.0, 2^63, math.mininteger, 1e300 })",
     "{ 0.30000000000000004, 1.0, 9.223372036854776e+18, math.mininteger, 1e+300 }"),
    ("error({ code = 1, [{}] = 1, [print] = 2, [coroutine.create(print)] = 3 })",
     "{ code = 1, <3 keys not data> }"),
    ("error({ [{}] = 1 })", "{ <1 key not data> }"),
    ("error({ f = print, c = coroutine.create(print) })", "{ c = <thread>, f = <function> }"),
    ("error({ -1, 2^53 })", "{ -1, 9007199254740992.0 }"),
  ])
  func aTableIsWrittenAsLuaWouldWriteIt(_ source: String, _ expected: String) throws {
    #expect(try message(source) == expected)
  }

  /// The same contents, made in two orders (a hash part's order is its history's), read alike.
  @Test func theOrderIsTheKeysNotTheHistory() throws {
    let forward = try message(
      "local t = {} for i = 1, 40 do t['k' .. i] = i end error(t)")
    let backward = try message(
      "local t = {} for i = 40, 1, -1 do t['k' .. i] = i end t.k41 = 1 t.k41 = nil error(t)")
    #expect(forward == backward)
    #expect(forward.hasPrefix("{ k1 = 1, k10 = 10, k11 = 11, "))
    #expect(forward.hasSuffix(", …, }") == false)
    #expect(forward.hasSuffix(", … }"))
  }

  /// Past 10,000 fields too: the first in key order are found among all of them (a scan of
  /// the first 10,000 in hash order showed other keys each run), and a string is not cut inside
  /// a character.
  @Test func theFirstKeysOfALargeTableAreItsFirst() throws {
    let text = try message(
      "local t = {} for i = 20000, 1, -1 do t['k' .. i] = i end t[5] = 5 t[2] = 2 error(t)")
    #expect(text.hasPrefix("{ [2] = 2, [5] = 5, k1 = 1, k10 = 10, k100 = 100, k1000 = 1000, "))
    let accents = try message("error({ string.rep('é', 40) })")
    #expect(accents == "{ \"" + String(repeating: "é", count: 30) + "…\" }")
  }

  @Test func aLongOrLargeTableIsCut() throws {
    let long = try message("error({ string.rep('x', 1000) })")
    #expect(long == "{ \"" + String(repeating: "x", count: 60) + "…\" }")
    let wide = try message(
      "local s, t = string.rep('y', 50), {} for i = 1, 200000 do t[i] = s end error(t)")
    #expect(wide.utf8.count <= 403 && wide.hasSuffix("…"), "\(wide.utf8.count)")
    #expect(wide.hasPrefix("{ \"yyyy"))
  }

  /// Raw reads only: no __index, __pairs or __len of the table or its fields runs.
  @Test func noMetamethodRuns() throws {
    let text = try message(
      """
      local loud = { __index = function() error('index ran') end,
        __pairs = function() error('pairs ran') end, __len = function() error('len ran') end }
      error(setmetatable({ a = setmetatable({ 1 }, loud) }, loud))
      """)
    #expect(text == "{ a = { 1 } }")
  }

  /// A `__tostring` says what the error is, as before; one that fails leaves the old words.
  @Test func aTostringStillSpeaks() throws {
    #expect(
      try message("error(setmetatable({ a = 1 }, { __tostring = function() return 'own' end }))")
        == "own")
    #expect(
      try message("error(setmetatable({ a = 1 }, { __tostring = function() error('x') end }))")
        == "(error object is a table value)")
  }

  /// Lua code catching the error gets the table itself: only the host's report is words.
  @Test func pcallStillGetsTheTable() throws {
    let vm = try LuaVM()
    let sandbox = try vm.makeSandbox()
    let result = try vm.evaluate(
      "local ok, e = pcall(error, { code = 7 }) return ok, e.code", in: sandbox)
    #expect(result == [false, 7])
  }

  /// A coroutine's error (an effect's) is described as a call's is.
  @Test func aCoroutinesTableErrorIsDescribed() throws {
    let vm = try LuaVM()
    let sandbox = try vm.makeSandbox()
    let function = try vm.evaluate(
      "return function() error({ code = 9 }) end", chunkName: "co.lua", in: sandbox)[0]
    guard case let .function(reference) = function else {
      Issue.record("expected a function, got \(function)")
      return
    }
    let coroutine = try vm.makeCoroutine(reference)
    #expect(throws: (any Error).self) { _ = try vm.resume(coroutine) }
    do {
      _ = try vm.resume(try vm.makeCoroutine(reference))
    } catch {
      #expect(error.message == "{ code = 9 }")
    }
  }
}
