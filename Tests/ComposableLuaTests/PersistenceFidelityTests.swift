import Composable
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// What a feature saves comes back exactly, or is refused at save time with its field named;
/// the saved file is Lua data that can compute nothing and reach nothing.
@Suite struct PersistenceFidelityTests {
  /// A feature whose `fill` action puts every hard-to-keep value in its state, and whose
  /// `check` action asks Lua itself whether each came back as it was.
  static let source = #"""
    local composable = require("composable")
    return {
      persist = composable.persist{ path = "kept.saved.lua" },
      initial_state = function() return {} end,
      reduce = function(state, action)
        if action.type == "fill" then
          state.bytes = "\255\254"
          state.controls = "a\0b\1\0012\r\n\t\"\\"
          state.mixed = { 1, 2, x = 3 }
          state.sparse = { [1] = "one", [3] = "three", [-7] = "minus seven" }
          state.one_float, state.one_integer = 1.0, 1
          state.negative_zero = -0.0
          state.not_a_number, state.infinity, state.minus_infinity = 0/0, 1/0, -1/0
          state.other_nan = -(0/0)
          state.smallest, state.largest = 5e-324, 1.7976931348623157e308
          state.tenth, state.big_float = 0.1, 2^63
          state.min_integer, state.max_integer = math.mininteger, math.maxinteger
          state.keys = { [true] = "yes", [false] = "no", [2.5] = "half", ["not a name"] = 1,
            ["end"] = "reserved", [""] = "empty" }
          state.text = "naïve — ✓"
          state.empty = {}
          state.empty_list = require("composable.json").array()
          local deep = {}
          local level = deep
          for _ = 1, 150 do level.next = {}; level = level.next end
          state.deep = deep
        elseif action.type == "check" then
          local function is_float(x) return math.type(x) == "float" end
          local depth, level = 0, state.deep
          while level.next do depth, level = depth + 1, level.next end
          local failures = {}
          local function expect(name, ok) if not ok then failures[#failures + 1] = name end end
          expect("bytes", state.bytes == "\255\254" and #state.bytes == 2)
          expect("controls", state.controls == "a\0b\1\0012\r\n\t\"\\")
          expect("mixed", state.mixed[1] == 1 and state.mixed[2] == 2 and state.mixed.x == 3)
          expect("sparse", state.sparse[1] == "one" and state.sparse[3] == "three"
            and state.sparse[-7] == "minus seven" and state.sparse["1"] == nil)
          expect("one_float", is_float(state.one_float) and state.one_float == 1)
          expect("one_integer", math.type(state.one_integer) == "integer")
          expect("negative_zero", is_float(state.negative_zero) and 1 / state.negative_zero == -1/0)
          expect("not_a_number", state.not_a_number ~= state.not_a_number)
          -- NaN's sign, as Lua prints it (`-nan` and `nan` on x86).
          expect("nan_signs", tostring(state.not_a_number) == tostring(0/0)
            and tostring(state.other_nan) == tostring(-(0/0)))
          expect("infinities", state.infinity == 1/0 and state.minus_infinity == -1/0)
          expect("smallest", state.smallest == 5e-324 and state.largest == 1.7976931348623157e308)
          expect("tenth", state.tenth == 0.1 and is_float(state.big_float)
            and state.big_float == 2^63)
          expect("integers", state.min_integer == math.mininteger
            and math.type(state.min_integer) == "integer" and state.max_integer == math.maxinteger)
          expect("keys", state.keys[true] == "yes" and state.keys[false] == "no"
            and state.keys[2.5] == "half" and state.keys["not a name"] == 1
            and state.keys["end"] == "reserved" and state.keys[""] == "empty")
          expect("text", state.text == "naïve — ✓")
          expect("empty", next(state.empty) == nil)
          local json = require("composable.json")
          expect("empty_list", json.encode(state.empty_list) == "[]" and json.encode(state.empty) == "{}")
          expect("deep", depth == 150)
          state.failures = table.concat(failures, ", ")
        end
      end,
    }
    """#

  static func send(_ type: String, to feature: LuaFeature) throws {
    try feature.step(["type": .init(type)])
  }

  @Test func everyValueAStateCanHoldComesBackExactly() async throws {
    let feature = try LuaFeature(source: Self.source, file: "kept.lua")
    try Self.send("fill", to: feature)
    let files = FileClient.inMemory()
    try await files.write("kept.saved.lua", try #require(try feature.persistedFile()))

    let restarted = try LuaFeature(source: Self.source, file: "kept.lua")
    let loaded = try await restarted.restorePersisted(files: files) { Issue.record("\($0)") }
    guard case .saved = loaded else {
      Issue.record("expected the saved state, got \(loaded)")
      return
    }
    try Self.send("check", to: restarted)
    #expect(try restarted.state().failures == "")
    // The same in Swift: integers stay integers, floats floats, and -0.0 keeps its sign.
    let state = try restarted.state()
    #expect(state.one_float == .number(1.0))
    #expect(state.one_integer == .integer(1))
    guard case let .number(zero) = state.negative_zero else { Issue.record("not a float"); return }
    #expect(zero == 0 && zero.sign == .minus)
    #expect(state.bytes == .string(LuaString(bytes: [255, 254])))
  }

  /// `lua5.4` loads the saved file to the same NaNs, each sign kept: `0/0` is the machine's
  /// default NaN (`-nan` on x86), `-(0/0)` the other. Every NaN was written `0/0`, so a NaN of
  /// the other sign came back as the default one.
  @Test func plainLuaReadsEachNaNOfTheSavedFileWithItsSign() throws {
    let feature = try LuaFeature(
      source: """
        local composable = require("composable")
        return {
          persist = composable.persist{ path = "nans.saved.lua" },
          initial_state = function() return { 0/0, -(0/0), { 0/0, -(0/0) } } end,
          reduce = function() end,
        }
        """, file: "nans.lua")
    let directory = try makeTemporaryDirectory("nans")
    defer { try? FileManager.default.removeItem(at: directory) }
    let saved = directory.appendingPathComponent("nans.saved.lua")
    try Data(try #require(try feature.persistedFile())).write(to: saved)
    let print = "print(tostring(t[1]), tostring(t[2]), tostring(t[3][1]), tostring(t[3][2]))"
    #expect(
      try PlainLua.output(of: "local t = dofile(\"\(saved.path)\") \(print)")
        == PlainLua.output(of: "local t = { 0/0, -(0/0), { 0/0, -(0/0) } } \(print)"))
  }

  @Test func theSavedFileReadsAsLuaData() throws {
    let feature = try LuaFeature(source: """
      local composable = require("composable")
      return {
        persist = composable.persist{ path = "notes.saved.lua" },
        initial_state = function()
          return { title = "Groceries", count = 2, ratio = 0.5, tags = { "home", "weekly" },
            items = { { name = "milk", done = false }, { name = "eggs\\n", done = true } },
            ["last seen"] = 1.0, [10] = -0.0 }
        end,
        reduce = function() end,
      }
      """, file: "notes.lua")
    let text = String(decoding: try #require(try feature.persistedFile()), as: UTF8.self)
    let code = feature.codeFingerprint
    #expect(text == #"""
      -- The state notes.lua saved. composable reads it back as Lua data: literals only.
      -- code: \#(code) (the code that saved it: other code runs its migrate(state) on it)
      return {
        [10] = -0.0,
        count = 2,
        items = {
          { done = false, name = "milk" },
          { done = true, name = "eggs\n" },
        },
        ["last seen"] = 1.0,
        ratio = 0.5,
        tags = { "home", "weekly" },
        title = "Groceries",
      }

      """#)
  }

  /// A function is refused where it is written (the action fails and rolls back), not at the
  /// next save, which failed then and at every save after while the run went on.
  @Test func aFunctionInTheStateIsRefusedWhereItIsWritten() throws {
    let feature = try LuaFeature(source: """
      local composable = require("composable")
      return {
        persist = composable.persist{ path = "x.saved.lua", select = "todos" },
        initial_state = function() return { todos = { { id = 1 } } } end,
        reduce = function(state) state.todos[1].on_done = print end,
      }
      """, file: "x.lua")
    let error = featureError { try Self.send("any", to: feature) }
    #expect(
      error?.description.contains(
        "x.lua:5: a function cannot be kept in the state (state is data: tables, strings, "
          + "numbers and booleans; keep a name for what it does)") == true,
      "\(String(describing: error))")
    #expect(try feature.state() == ["todos": [["id": 1]]])
    #expect(try feature.persistedFile() != nil)
  }

  /// Files that try to do more than hold data: each is moved aside, reported with where it
  /// went wrong (nothing in it ran), and the feature starts from its initial state.
  @Test(arguments: [
    ("return os.exit(1)", "kept.saved.lua:1:8: expected a value, found 'os'"),
    ("while true do end return {}", "kept.saved.lua:1:1: expected 'return' and a value, found 'while'"),
    ("return { f = function() end }", "kept.saved.lua:1:14: expected a value, found 'function'"),
    ("return ('x'):rep(1 << 40)", "kept.saved.lua:1:9: a data file holds literals only"),
    ("return { 1 }, { 2 }", "kept.saved.lua:1:13: expected the end of the file after the returned value, found ','"),
    ("return 42", "expected a table, got integer"),
    ("return {", "kept.saved.lua:1:9: expected a value, found the end of the file"),
    ("local s = 0 for i = 1, 10 do s = s + i end return { sum = s }", "kept.saved.lua:1:7: expected 'shared'"),
    ("return { sum = 6 * 7 }", "kept.saved.lua:1:18: expected ',' or '}' in a table, found '*'"),
    // An older save's JSON, broken: said as JSON, not as a data file missing its `return`.
    (#"{"n": 1e999}"#, "it reads as neither a Lua data file nor JSON: Number 1e999 is not representable"),
    (#"  {"n": [1, {"a": }]}"#, "it reads as neither a Lua data file nor JSON: Invalid value around character"),
    (#"{"n": 1"#, "it reads as neither a Lua data file nor JSON: Unexpected end of file"),
  ])
  func aFileThatIsNotPlainDataIsMovedAside(contents: String, reason: String) async throws {
    let files = FileClient.inMemory(["kept.saved.lua": contents])
    let feature = try LuaFeature(source: Self.source, file: "kept.lua")
    let reports = Locked<[String]>([])
    let loaded = try await feature.restorePersisted(files: files) { message in
      reports.withLock { $0.append(message) }
    }
    guard case let .corrupt(why, movedTo) = loaded else {
      Issue.record("expected the file refused, got \(loaded)")
      return
    }
    #expect(why.contains(reason))
    #expect(movedTo.hasPrefix("kept.saved.lua.corrupt-"))
    #expect(try await files.list(".") == [movedTo])
    #expect(reports.withLock { $0.count } == 1)
    #expect(try feature.state() == [:])
  }

  @Test func aFileThatIsNotTextIsMovedAside() async throws {
    let files = FileClient.inMemory()
    try await files.write("kept.saved.lua", [0xFF, 0xFE, 0x72])
    let feature = try LuaFeature(source: Self.source, file: "kept.lua")
    let loaded = try await feature.restorePersisted(files: files) { _ in }
    guard case let .corrupt(why, _) = loaded else { Issue.record("expected refused"); return }
    #expect(
      why == "it is not a saved state: syntax error: kept.saved.lua:1:1: unexpected symbol: byte 255")
  }

  /// Strings are bytes: a file with bytes that are not UTF-8 inside a string literal (written
  /// by hand: the writer escapes them) is read, the bytes exactly.
  @Test func bytesThatAreNotUTF8InAStringOfASavedFileAreRead() async throws {
    let files = FileClient.inMemory()
    try await files.write(
      "kept.saved.lua", Array("return { bytes = '".utf8) + [0xFF, 0xFE] + Array("' }".utf8))
    let feature = try LuaFeature(source: Self.source, file: "kept.lua")
    let loaded = try await feature.restorePersisted(files: files) { Issue.record("\($0)") }
    guard case .saved = loaded else { Issue.record("expected read, got \(loaded)"); return }
    #expect(try feature.state().bytes == .string(LuaString(bytes: [0xFF, 0xFE])))
  }

  @Test func aJSONFileFromAnEarlierVersionIsReadAndTheNextSaveIsLua() async throws {
    let files = FileClient.inMemory([
      "todos.saved.lua": #"[{"done":true,"id":"A","title":"saved as JSON"}]"#,
    ])
    let feature = try LuaFeature(contentsOf: URL(fileURLWithPath: example("todos/todos.lua")))
    let loaded = try await feature.restorePersisted(files: files) { Issue.record("\($0)") }
    guard case .saved = loaded else {
      Issue.record("expected the saved list, got \(loaded)")
      return
    }
    #expect(try feature.state().todos == [["done": true, "id": "A", "title": "saved as JSON"]])
    let text = String(decoding: try #require(try feature.persistedFile()), as: UTF8.self)
    #expect(text.hasSuffix("""
      return {
        { done = true, id = "A", title = "saved as JSON" },
      }

      """))
  }
}
