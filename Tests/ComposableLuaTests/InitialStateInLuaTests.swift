import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// `initial_state()`'s table is copied into the state in Lua, never through Swift, by the
/// snapshot's rules: no module local aliases the state, arrays are marked, values keep their
/// kinds, and what cannot be state is refused with its field named.
@Suite struct InitialStateInLuaTests {
  static func feature(_ initial: String, reduce: String = "") throws(LuaFeatureError) -> LuaFeature
  {
    try LuaFeature(
      source: """
        local shared = { n = 0 }
        local function poke() shared.n = shared.n + 1 end
        return {
          initial_state = function() \(initial) end,
          reduce = function(state, action)
            poke()
            \(reduce)
          end,
        }
        """, file: "initial.lua")
  }

  @Test func noModuleLocalAliasesTheState() throws {
    let feature = try Self.feature(
      "return { inner = shared }", reduce: "state.seen = state.inner.n")
    try feature.step("look")
    #expect(try feature.state() == ["inner": ["n": 0], "seen": 0])
  }

  @Test func valuesKeepTheirKindsAndArraysAreMarked() throws {
    let feature = try Self.feature(
      """
      return {
        list = { 1, 2.0, "three\\0\\r\\n" }, empty = {}, holes = { [1] = 1, [3] = 3 },
        nan = 0/0, negative_zero = -0.0, big = math.mininteger, yes = true,
        object = setmetatable({ x = 1 }, { __index = function() return 42 end }),
      }
      """)
    let state = try feature.state()
    #expect(state.list == [1, .number(2.0), .string(LuaString(bytes: Array("three\0\r\n".utf8)))])
    #expect(state.list.tableValue?.kind == .array)
    #expect(state.empty.tableValue?.kind == .map)
    #expect(state.holes.tableValue?.kind == .map)
    #expect(state.nan.doubleValue?.isNaN == true)
    #expect(state.negative_zero.doubleValue?.sign == .minus)
    #expect(state.big == .integer(Int.min))
    #expect(state.object == ["x": 1], "the metatable is dropped, as a snapshot drops it")
    #expect(try feature.evaluate("getmetatable(state.object), state.object.y") == [.nil, .nil])
  }

  /// A function or a coroutine is code, not data: an initial state holding one does not load,
  /// naming the field, whichever way it is copied (in Lua, or through a snapshot when a table
  /// key sends it there).
  @Test(arguments: [
    ("{ a = { f = function() end } }", "result #1.a.f", "function"),
    ("{ list = { 1, coroutine.create(print) } }", "result #1.list[2]", "coroutine"),
  ])
  func codeInTheInitialStateIsRefusedNamingTheField(
    state: String, field: String, kind: String
  ) {
    let error = featureError { _ = try Self.feature("return \(state)") }
    #expect(
      error?.description.contains(
        "\(field): a \(kind) cannot be kept in the state (state is data: tables, strings, "
          + "numbers and booleans; keep a name for what it does)") == true,
      "\(String(describing: error))")
  }

  /// A table reached twice is copied once: the state holds one table at both places, as it
  /// would after `state.a = t; state.b = t` in a reducer.
  @Test func aTableReachedTwiceIsOneTableOfTheState() throws {
    let feature = try Self.feature(
      """
      local t = { x = 1 }
      local level = { t, t }
      for _ = 1, 60 do level = { level, level } end  -- 2^60 paths, one table a level
      return { a = t, b = t, wide = level }
      """, reduce: "state.a.x = 2")
    try feature.step("write")
    #expect(try feature.evaluate("state.b.x, rawequal(state.a, state.b)") == [2, true])
  }

  @Test func whatCannotBeStateIsRefusedWithItsFieldNamed() throws {
    let cases: [(String, String)] = [
      (
        "local a = {} a.self = a return { a = a }",
        "result #1.a.self: cycle: the table contains itself"
      ),
      (
        "return { keys = { [{}] = 1 } }",
        "result #1.keys: a table key cannot be read (keys are strings, numbers, booleans)"
      ),
      (
        "local t = {} for _ = 1, 250 do t = { t } end return { deep = t }",
        "nested more than 200 levels deep"
      ),
      ("return 42", "the initial state must be a table, got integer"),
    ]
    for (initial, expected) in cases {
      #expect(throws: LuaFeatureError.self) { try Self.feature(initial) }
      do {
        _ = try Self.feature(initial)
      } catch {
        #expect(error.description.contains(expected), "\(error.description)")
      }
    }
    #expect(try Self.feature("return").state() == [:], "nothing returned is an empty state")
  }
}
