import LuaKit
import SeededRandom
import Testing

/// `composable.json` (LuaKit's `jsonModule()`): what it writes and reads, pinned, and what it
/// says when it cannot, as feature code sees it.
@Suite struct LuaJSONTests {
  /// Runs `code` with `json` in scope and returns its first result.
  func run(_ code: String, limits: LuaLimits = LuaLimits()) throws -> LuaValue {
    let vm = try LuaVM(limits: limits)
    let sandbox = try vm.makeSandbox(.init(preloaded: ["json": .other(vm.jsonModule())]))
    return try vm.evaluate(
      "local json = require('json')\n" + code, chunkName: "test.lua", in: sandbox
    ).first ?? .nil
  }

  /// The error `code` raises, as the feature would catch it with pcall, after the position of
  /// the call (`test.lua:2: `), which it starts with as Lua's own errors do.
  func failure(_ code: String) throws -> String {
    let message = try run("local ok, e = pcall(function() \(code) end) assert(not ok) return e")
      .stringValue ?? ""
    #expect(message.hasPrefix("test.lua:2: "))
    return String(message.dropFirst("test.lua:2: ".count))
  }

  @Test func encodeWritesSortedObjectsArraysAndExactNumbers() throws {
    let text = try run(
      """
      return json.encode({
        name = "milk \\"2%\\"\\n", count = 3, ratio = 0.1, whole = 1.0, big = 1e300,
        tags = { "a", "b" }, empty_map = {}, empty_list = json.array(), none = json.null,
        done = false, nested = { { id = 1 } }, unicode = "é😀", control = "\\1\\127",
      })
      """)
    #expect(text == #"""
      {"big":1e+300,"control":"\u0001\u007f","count":3,"done":false,"empty_list":[],"empty_map":{},"name":"milk \"2%\"\n","nested":[{"id":1}],"none":null,"ratio":0.1,"tags":["a","b"],"unicode":"é😀","whole":1.0}
      """#)
  }

  @Test func decodeGivesIntegersFloatsArraysMapsAndNull() throws {
    let result = try run(
      #"""
      local v = json.decode('{"n": 1, "f": 1.0, "e": 2e3, "neg": -0.5, "list": [1, null, 3],'
        .. ' "empty": [], "map": {}, "s": "\\u00e9\\ud83d\\ude00\\n\\/", "t": true}')
      return table.concat({
        math.type(v.n), math.type(v.f), math.type(v.e), tostring(v.neg), #v.list,
        tostring(v.list[2] == json.null), json.encode(v.empty), json.encode(v.map), v.s,
        tostring(v.t),
      }, "|")
      """#)
    #expect(result == "integer|float|float|-0.5|3|true|[]|{}|é😀\n/|true")
  }

  /// What goes through encode and decode comes back the same, integer or float, list or map.
  @Test func aRoundTripKeepsEveryValue() throws {
    let result = try run(
      """
      local value = { a = { 1, 2.5, -0.0, math.maxinteger, math.mininteger, 1e-300 },
        b = { c = { d = "x\\0y" } }, e = json.array(), f = {} }
      local back = json.decode(json.encode(value))
      return json.encode(back) == json.encode(value) and math.type(back.a[1]) == "integer"
        and math.type(back.a[2]) == "float" and back.a[4] == math.maxinteger
        and back.a[5] == math.mininteger and back.b.c.d == "x\\0y"
      """)
    #expect(result == true)
  }

  @Test func encodeNamesThePathOfWhatHasNoJSONForm() throws {
    #expect(try failure("json.encode({ a = { b = { 0/0 } } })")
      == "json.encode: a.b[1]: NaN has no JSON form")
    #expect(try failure("json.encode({ x = 1/0 })")
      == "json.encode: x: an infinite number has no JSON form")
    #expect(try failure("json.encode({ f = print })")
      == "json.encode: f: a function has no JSON form")
    #expect(try failure("json.encode({ 1, 2, nil, 4 })")
      == "json.encode: a table with integer keys that are not 1..n (JSON arrays have no holes)")
    #expect(try failure("json.encode({ list = { [1] = 1, name = 'x' } })")
      == "json.encode: list: a table with both string and other keys (JSON objects have string keys)")
    #expect(try failure("json.encode({ s = '\\255' })")
      == "json.encode: s: the string is not UTF-8 text (JSON holds only text)")
    let cycle = try failure("local t = {} t.next = t json.encode(t)")
    #expect(cycle.hasPrefix("json.encode: next.next.next.next.next.next...next.next.next: "))
    #expect(cycle.hasSuffix("nested more than 200 levels deep (a table that holds itself?)"))
  }

  @Test func decodeNamesTheLineAndColumn() throws {
    #expect(try failure(#"json.decode('{"a": 1,\n  "b": }')"#) == """
      json.decode: line 2, column 8: expected a value (an object, array, string, number, true, \
      false or null), got '}'
      """)
    #expect(try failure("json.decode('[1, 2')")
      == "json.decode: line 1, column 6: expected ',' or ']' after an element of an array, got the end of the text")
    #expect(try failure(#"json.decode('"é\x01')"#)
      == "json.decode: line 1, column 3: a control character must be escaped in a string, got byte 1")
    #expect(try failure(#"json.decode('"\255"')"#)
      == "json.decode: line 1, column 2: expected UTF-8 text, got byte 255")
    #expect(try failure("json.decode('01')")
      == "json.decode: line 1, column 2: expected the end of the text after the value, got '1'")
    #expect(try failure(#"json.decode('"\\ud800"')"#)
      == #"json.decode: line 1, column 2: expected a low surrogate '\uDC00'..'\uDFFF' after a high one, got '\'"#)
    #expect(try failure("json.decode(string.rep('[', 300))")
      == "json.decode: line 1, column 201: nested more than 200 levels deep, got '['")
    #expect(try failure("json.decode('')")
      == "json.decode: line 1, column 1: expected a value, got the end of the text")
    #expect(try failure("json.decode({})").contains("bad argument #1 to 'decode' (string expected, got table)"))
  }

  /// `json.array` marks a new table; a table with a metatable of its own is refused.
  @Test func arrayMarksOnlyPlainTables() throws {
    #expect(try run("return json.encode(json.array({}))") == "[]")
    #expect(try run("return json.encode(json.array({ 1, 2 }))") == "[1,2]")
    #expect(try failure("json.array(setmetatable({}, {}))")
      == "json.array: the table has a metatable of its own")
  }

  /// The marker makes an empty table an array, not holes fine: what was written depended on
  /// where Lua's length found a border (`[1]` for keys 1 and 3, `[1,null,3]` for `{ 1, nil, 3
  /// }`), and keys 0 or 1.5 were dropped. Each is the error a plain table with them gets.
  @Test func aMarkedArrayWithHolesIsAnError() throws {
    let message =
      "an array (it has the array marker) with keys that are not 1..n (JSON arrays have no "
      + "holes; json.null stands for a null)"
    for code in [
      "local a = json.array({}) a[1] = 1 a[3] = 3",
      "local a = json.array({}) a[2] = 2",
      "local a = json.array({ 1, nil, 3 })",
      "local a = json.array({ 1 }) a[0] = 0",
      "local a = json.array({ 1 }) a[1.5] = 0",
      "local a = json.array({ 1 }) a[-1] = 0",
    ] {
      #expect(try failure(code + " json.encode({ list = a })") == "json.encode: list: " + message,
        "\(code)")
    }
    #expect(try run("return json.encode(json.array({ 1, json.null, 3 }))") == "[1,null,3]")
  }

  /// A huge text is charged to the budget and held by the memory limit: an error, not a hang.
  @Test func hugeInputStaysWithinTheLimits() throws {
    let limited = LuaLimits(memory: 16 << 20, instructions: 1_000_000)
    #expect(throws: LuaError.self) {
      _ = try run("return json.decode('[' .. string.rep('1,', 4000000) .. '1]')", limits: limited)
    }
    // The text written grows past the memory limit: the table is 1.6 MB, its JSON 10 MB.
    #expect(throws: LuaError.memoryLimit(limit: 8 << 20)) {
      _ = try run(
        "local s, t = ('x'):rep(100), {} for i = 1, 100000 do t[i] = s end return json.encode(t)",
        limits: LuaLimits(memory: 8 << 20))
    }
  }

  /// Random bytes and mangled JSON never crash the decoder: each is a value or an error.
  @Test func randomTextIsAValueOrAnError() throws {
    var random = SplitMix64(seed: 18)
    let pieces = ["{", "}", "[", "]", ",", ":", "\"", "\\", "u", "d8", "00", "1", "-", ".", "e",
      "true", "null", " ", "\n", "é", "\u{1}", "\"a\"", "0", "9"]
    let vm = try LuaVM()
    let sandbox = try vm.makeSandbox(.init(preloaded: ["json": .other(vm.jsonModule())]))
    let decode = try vm.evaluate(
      """
      local json = require('json')
      return function(text)
        local ok, value = pcall(json.decode, text)
        if not ok then return assert(value:match('^json.decode: line %d+, column %d+: ')) end
        return json.encode(value)
      end
      """, chunkName: "fuzz.lua", in: sandbox)[0]
    guard case let .function(function) = decode else { Issue.record("no function"); return }
    for _ in 0..<3000 {
      var text = ""
      for _ in 0..<random.below(20) { text += pieces[random.below(pieces.count)] }
      let result = try vm.call(function, .string(LuaString(text)))
      #expect(result.first?.stringValue != nil)
    }
  }
}
