import ComposableLua
import LuaKit
import Testing

@testable import ComposableLua

/// A reducer's error under the library's combinators is reported with the feature's own frames
/// only: the library's (`composable:254: in upvalue 'reduce'`) point at nothing its author
/// wrote.
@Suite struct LibraryFramesTests {
  @Test func aChildsErrorShowsTheFeaturesFramesOnly() throws {
    let feature = try LuaFeature(
      source: """
        local composable = require("composable")
        local function child(state, action)
          if action.type == "boom" then error("no booms") end
        end
        return {
          initial_state = function() return { path = composable.stack_state() } end,
          reduce = composable.combine(
            composable.stack{ state = "path", action = "path", screens = { child = child } },
            function(state, action)
              if action.type == "open" then composable.push(state.path, "child") end
            end),
        }
        """, file: "app.lua")
    _ = try feature.step("open")
    let error = try #require(throws: LuaFeatureError.self) {
      try feature.step(["type": "path", "id": 1, "action": "boom"])
    }
    let text = "\(error)"
    #expect(text.contains("app.lua:3: no booms"), "\(text)")
    #expect(text.contains("\tapp.lua:3: in "), "\(text)")
    #expect(!text.contains("composable:"), "\(text)")
  }

  @Test func onlyTheLibrarysChunksAreTakenOut() {
    let traceback = """
      stack traceback:
      \t[C]: in function 'error'
      \tcomposable.lua:3: in local 'reduce'
      \tcomposable:254: in upvalue 'reduce'
      \tcomposable.effect:12: in function <composable.effect:10>
      \tcomposable_extra:9: in main chunk
      """
    #expect(
      LuaError.withoutLibraryFrames(traceback) == """
        stack traceback:
        \t[C]: in function 'error'
        \tcomposable.lua:3: in local 'reduce'
        \tcomposable_extra:9: in main chunk
        """)
    #expect(
      LuaError.withoutLibraryFrames("stack traceback:\n\tcomposable:1: in function <composable:1>")
        == "")
  }
}
