import Composable
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// A state restored from a file other code saved is compared with the state `initial_state()`
/// gives: where it has nothing, or a value of another type, the host is told
/// (`LuaFeature.restoredShapeGaps`), before an action of the code of now fails on it (a new
/// field, a restart: `attempt to index a nil value (field 'settings')`).
@Suite struct RestoredShapeTests {
  static func gaps(
    _ restored: LuaValue, _ initial: LuaValue, limit: Int = 5
  )
    -> ([String], Int)
  {
    let found = RestoredShapeGap.gaps(restored: restored, initial: initial, limit: limit)
    return (found.gaps.map { "\($0.path): \($0.found) for \($0.expected)" }, found.count)
  }

  @Test func fieldsMissingOrTablesForScalarsAreGaps() {
    let initial: LuaValue = [
      "n": 0, "filter": "all", "settings": ["theme": "dark", "size": 3], "on": true,
    ]
    #expect(Self.gaps(initial, initial) == ([], 0))
    #expect(
      Self.gaps(["n": 4, "on": "yes", "settings": ["theme": 1]], initial)
        == (["filter: nil for string"], 1))
    // A table where a scalar was, and the other way: a gap.
    #expect(
      Self.gaps(["n": ["x": 1], "filter": "all", "settings": 7, "on": false], initial)
        == (["n: table for number", "settings: number for table"], 2))
  }

  /// What is data, not shape, is no gap: a scalar of another type (`selected = false` until one
  /// is), a field below the top (a table may be a map: an initial example entry), a list's
  /// elements, fields the restored state has and the initial one does not.
  @Test func whatIsNotShapeIsNoGap() {
    #expect(Self.gaps(["n": 1.5, "extra": "kept"], ["n": 0]) == ([], 0))
    #expect(Self.gaps(["selected": "abc"], ["selected": false]) == ([], 0))
    #expect(Self.gaps(["m": ["b": 2]], ["m": ["a": 1]]) == ([], 0))
    #expect(
      Self.gaps(["todos": [["title": "x"]]], ["todos": [["title": "a", "done": false]]])
        == ([], 0))
    #expect(Self.gaps(["byId": [:]], ["byId": .table(LuaTable(entries: [7: "seven"]))]) == ([], 0))
    #expect(Self.gaps("text", ["n": 0]) == ([], 0))
  }

  /// At most `limit` places, in the order of the names' bytes (any bytes: a name that is not
  /// UTF-8 too); the count is of all. A name Lua cannot write after a dot is an index.
  @Test func theFirstPlacesAndTheCountOfAll() {
    var initial = LuaTable()
    for name in ["b", "a", "c", "é", "Z"] { initial[.string(LuaString(name))] = 1 }
    initial[.string(LuaString(bytes: [0xFF]))] = 1
    initial[1] = "a list element: data"
    let (places, count) = Self.gaps([:], .table(initial), limit: 3)
    #expect(places == ["Z: nil for number", "a: nil for number", "b: nil for number"])
    #expect(count == 6)
    #expect(Self.gaps([:], ["a key": 1]).0 == [#"["a key"]: nil for number"#])
  }

  static let old = """
    local composable = require("composable")
    return {
      persist = composable.persist{ path = "tally.saved.lua", debounce = 0 },
      initial_state = function() return { n = 0 } end,
      reduce = function(state) state.n = state.n + 1 end,
    }
    """

  static func new(migrate: String = "") -> String {
    """
    local composable = require("composable")
    return {
      persist = composable.persist{ path = "tally.saved.lua", debounce = 0 },
      initial_state = function() return { n = 0, filter = "all", settings = { size = 3 } } end,
      \(migrate)
      reduce = function(state) state.n = state.n + 1 end,
    }
    """
  }

  func restore(
    _ source: String, savedBy saver: String, state: LuaValue = ["n": 3]
  )
    async throws -> LuaFeature
  {
    let files = FileClient.inMemory()
    let old = try LuaFeature(source: saver, file: "tally.lua")
    try old.setState(state)
    try await files.write("tally.saved.lua", try #require(try old.persistedFile()))
    let feature = try LuaFeature(source: source, file: "tally.lua")
    try await feature.restorePersisted(files: files) { Issue.record("\($0)") }
    return feature
  }

  /// Found after a restore of other code's state, after its `migrate`; not for the same code's.
  @Test func aRestoreOfOtherCodesStateIsCompared() async throws {
    let bare = try await restore(Self.new(), savedBy: Self.old)
    #expect(bare.restoredShapeGaps?.gaps.map(\.path) == ["filter", "settings"])
    let mended = try await restore(
      Self.new(migrate: #"migrate = function(state) state.filter = state.filter or "all" end,"#),
      savedBy: Self.old)
    #expect(mended.restoredShapeGaps?.gaps.map(\.path) == ["settings"])
    #expect(try mended.state() == ["n": 3, "filter": "all"])
    let whole = try await restore(
      Self.new(
        migrate:
          #"migrate = function(state) state.filter = "all" state.settings = { size = 3 } end,"#),
      savedBy: Self.old)
    #expect(whole.restoredShapeGaps == nil)
    // Saved by this very code: its own state, whatever its shape.
    let same = try await restore(Self.new(), savedBy: Self.new())
    #expect(same.restoredShapeGaps == nil)
  }

  /// With `persist{ select = ... }`, the field saved is compared with the same field of the
  /// initial state (a scalar where a table was, here): the rest was not restored.
  @Test func aSelectedFieldIsComparedWithItsOwn() async throws {
    func source(_ initial: String) -> String {
      """
      local composable = require("composable")
      return {
        persist = composable.persist{ path = "tally.saved.lua", debounce = 0, select = "kept" },
        initial_state = function() return \(initial) end,
        reduce = function(state) end,
      }
      """
    }
    let feature = try await restore(
      source(#"{ kept = { n = 0 }, loose = 1 }"#),
      savedBy: source("{ kept = 0 }"), state: ["kept": 5])
    #expect(feature.restoredShapeGaps?.gaps.map(\.path) == ["kept"])
  }
}
