import Composable
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// A reducer's `<close>` variables are closed with the error as it was raised, as under a
/// plain `pcall` in `lua5.4`: they got the runtime's report instead (a string, the message
/// with its traceback), since Lua 5.4 closes them with what the message handler returned. The
/// host still reports the error with its traceback.
@Suite struct ToBeClosedInReducerTests {
  static let source = """
    local seen = {}
    local function closer()
      return setmetatable({}, { __close = function(_, err)
        seen[#seen + 1] = type(err) == "table" and ("table " .. tostring(err.code))
          or tostring(err)
      end })
    end
    return {
      initial_state = function() return { seen = {} } end,
      reduce = function(state, action)
        local guard <close> = closer()
        if action.type == "table" then
          state.changed = true
          error({ code = 7 })
        elseif action.type == "string" then
          error("boom", 0)
        elseif action.type == "nested" then
          local inner <close> = setmetatable({}, { __close = function() error({ code = 9 }) end })
          error({ code = 8 })
        elseif action.type == "number" then
          error(42)
        elseif action.type == "show" then
          for i, s in ipairs(seen) do state.seen[i] = s end
        end
      end,
    }
    """

  /// What each failing action's `<close>` saw, and what the host reported, as `lua5.4` gives
  /// the first (checked against it in `theClosedSeeWhatLua54Gives`).
  @Test func theErrorObjectReachesCloseAndTheReportKeepsItsTraceback() throws {
    let feature = try LuaFeature(source: Self.source, file: "feature.lua")
    var reports: [String] = []
    for type in ["table", "string", "nested", "number"] {
      do {
        _ = try feature.step(["type": .string(LuaString(type))])
        Issue.record("\(type) did not fail")
      } catch {
        reports.append("\(error)")
      }
    }
    _ = try feature.step(["type": "show"])
    #expect(
      try feature.state().seen
        == ["table 7", "boom", "table 9", "42"])
    #expect(try feature.state().changed == .nil)  // rolled back
    #expect(reports[0].contains("rolled back: { code = 7 }\nstack traceback:"), "\(reports[0])")
    #expect(reports[1].contains("boom\nstack traceback:"), "\(reports[1])")
    #expect(reports[2].contains("rolled back: { code = 9 }\nstack traceback:"), "\(reports[2])")
    #expect(reports[3].contains("42\nstack traceback:"), "\(reports[3])")
  }

  @Test func theClosedSeeWhatLua54Gives() throws {
    let script = """
      local feature = (function() \(Self.source) end)()
      local state = feature.initial_state()
      for _, t in ipairs({ "table", "string", "nested", "number" }) do
        pcall(feature.reduce, state, { type = t })
      end
      feature.reduce(state, { type = "show" })
      print(table.concat(state.seen, ","))
      """
    let output = try PlainLua.output(of: script)
    #expect(output == "table 7,boom,table 9,42\n")
  }
}
