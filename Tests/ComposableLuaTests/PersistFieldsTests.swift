import ComposableLua
import Testing

/// `persist{...}` takes `path`, `select`, `debounce` and `is_duplicate`: any other field is an
/// error naming it, as an effect's request is (a new user's `debouce = 0` loaded and saved a
/// second late, with no word).
@Suite struct PersistFieldsTests {
  static func source(_ persist: String) -> String {
    """
    local composable = require("composable")
    return {
      persist = \(persist),
      initial_state = function() return { n = 0 } end,
      reduce = function(state) state.n = state.n + 1 end,
    }
    """
  }

  func loadError(_ persist: String) -> String {
    do {
      _ = try LuaFeature(source: Self.source(persist), file: "tally.lua")
      return ""
    } catch {
      return "\(error)"
    }
  }

  static let fields = "its fields are path, select, debounce, is_duplicate"

  @Test(arguments: [
    (#"composable.persist{ path = "t.saved.lua", debouce = 0 }"#, #"persist: "debouce": "#),
    (#"composable.persist{ path = "t.saved.lua", is_duplicat = print }"#, #"persist: "is_duplicat": "#),
    (#"composable.persist{ pth = "t.saved.lua" }"#, #"persist: "pth": "#),
    (#"composable.persist{ path = "t.saved.lua", [1] = true }"#, "persist: a number key: "),
    (#"composable.persist{ path = "t.saved.lua", [{}] = true }"#, "persist: a table key: "),
  ])
  func aFieldPersistDoesNotTakeIsNamed(persist: String, named: String) {
    let error = loadError(persist)
    #expect(
      error.contains("tally.lua:3: " + named + "persist takes no such field; " + Self.fields),
      "\(error)")
  }

  /// A table set as `persist` without `composable.persist` is checked the same.
  @Test func aPlainTableIsCheckedToo() {
    let error = loadError(#"{ path = "t.saved.lua", debouce = 0 }"#)
    #expect(error.contains("persist.debouce: persist takes no such field; " + Self.fields), "\(error)")
  }

  @Test func everyFieldItTakesLoads() throws {
    _ = try LuaFeature(
      source: Self.source(
        #"composable.persist{ path = "t.saved.lua", select = "n", debounce = 0, "#
          + "is_duplicate = function() return false end }"),
      file: "tally.lua")
  }
}
