@testable import ComposableLua
import Foundation
import Testing

/// A Lua state served as JSON by a Swift API (`JSONEncoder().encode(try feature.state())`) keeps
/// its types stable: a list made with `json.array()` is `[]` when empty, whatever happened to it
/// (filled, emptied by `table.remove`, rolled back, swapped in by a hot reload's `migrate`); a
/// plain empty table is `{}`, as Lua cannot tell an empty list from an empty map (documented in
/// docs/lua-api.md and the README).
@Suite struct JSONForAPIsTests {
  static let feature = """
    local json = require("composable.json")
    return {
      initial_state = function() return { todos = json.array(), tags = {} } end,
      reduce = function(state, action)
        if action.type == "add" then
          table.insert(state.todos, { title = action.title })
          state.tags[#state.tags + 1] = action.title
        elseif action.type == "remove" then
          table.remove(state.todos)
          table.remove(state.tags)
        elseif action.type == "replace" then
          state.todos = json.array()
        elseif action.type == "fail" then
          table.remove(state.todos)
          error("refused")
        end
      end,
    }
    """

  static func json(_ feature: LuaFeature) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    return String(decoding: try encoder.encode(try feature.state()), as: UTF8.self)
  }

  @Test func aMarkedListIsAnArrayWhenEmptyAtEveryStep() throws {
    let feature = try LuaFeature(source: Self.feature, file: "todos.lua")
    #expect(try Self.json(feature) == #"{"tags":{},"todos":[]}"#)
    _ = try feature.step(["type": "add", "title": "milk"])
    #expect(try Self.json(feature) == #"{"tags":["milk"],"todos":[{"title":"milk"}]}"#)
    // A failed action rolls back: the list is still one long, and still a list.
    #expect(throws: LuaFeatureError.self) { _ = try feature.step(["type": "fail"]) }
    #expect(try Self.json(feature) == #"{"tags":["milk"],"todos":[{"title":"milk"}]}"#)
    _ = try feature.step(["type": "remove"])
    // The unmarked one is a map once empty: Lua cannot tell; mark it to keep it a list.
    #expect(try Self.json(feature) == #"{"tags":{},"todos":[]}"#)
    _ = try feature.step(["type": "add", "title": "eggs"])
    _ = try feature.step(["type": "replace"])
    #expect(try Self.json(feature) == #"{"tags":["eggs"],"todos":[]}"#)
  }

  /// The marker survives what a host does to a state: a copy written back (a Swift parent's),
  /// and a hot reload whose `migrate` makes the list.
  @Test func theMarkerSurvivesWriteBackAndMigrate() throws {
    let feature = try LuaFeature(source: Self.feature, file: "todos.lua")
    try feature.setState(try feature.state())
    #expect(try Self.json(feature) == #"{"tags":{},"todos":[]}"#)
    try feature.swap(
      toSource: LuaString(
        """
        local json = require("composable.json")
        return {
          initial_state = function() return {} end,
          migrate = function(state) state.done = json.array() return state end,
          reduce = function() end,
        }
        """))
    #expect(try Self.json(feature) == #"{"done":[],"tags":{},"todos":[]}"#)
  }

  /// Decoded from JSON, `[]` is a list and `{}` a map, and each encodes back as it came.
  @Test func jsonRoundTripsThroughLuaValue() throws {
    let text = #"{"a":[],"b":{},"c":[1,2],"d":{"x":1}}"#
    let value = try JSONDecoder().decode(LuaValue.self, from: Data(text.utf8))
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    #expect(String(decoding: try encoder.encode(value), as: UTF8.self) == text)
    let feature = try LuaFeature(source: Self.feature, file: "todos.lua", state: value)
    #expect(try Self.json(feature) == text)
  }
}

/// `null` inside a JSON array is a hole in Lua; the array is written back with it, not as an
/// object keyed by the elements' places.
@Suite struct JSONNullsInArraysTests {
  static func roundTrip(_ text: String) throws -> String {
    let value = try JSONDecoder().decode(LuaValue.self, from: Data(text.utf8))
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    return String(decoding: try encoder.encode(value), as: UTF8.self)
  }

  @Test(arguments: [
    "[1,null,3]", "[null,null,1]", #"{"a":[null,"x"]}"#, "[[],null,{}]",
  ])
  func anArrayWithNullsComesBackAsItWent(_ text: String) throws {
    #expect(try Self.roundTrip(text) == text)
  }

  /// Nulls at the end are not kept: Lua holds nothing after the last value (documented).
  @Test func trailingNullsAreDropped() throws {
    #expect(try Self.roundTrip("[1,null]") == "[1]")
    #expect(try Self.roundTrip("[null]") == "[]")
  }

  /// A Lua table with a hole that is no decoded array stays an object; a huge key stays one too.
  @Test func otherTablesWithHolesAreObjects() throws {
    let sparse = LuaValue.table(LuaTable(entries: [1: "a", 3: "c"]))
    #expect(
      String(decoding: try JSONEncoder.sortedKeys().encode(sparse), as: UTF8.self)
        == #"{"1":"a","3":"c"}"#)
    let far = LuaValue.table(LuaTable(kind: .array, entries: [1: "a", 1_000_000_000: "z"]))
    let text = String(decoding: try JSONEncoder().encode(far), as: UTF8.self)
    #expect(text.hasPrefix("{"))
  }
}
