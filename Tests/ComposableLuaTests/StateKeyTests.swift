import ComposableLua
import LuaKit
import TestSupport
import Testing

/// Keys of a state are strings, numbers and booleans, the keys a saved file can hold: a table,
/// a function, a coroutine or a userdata is refused when it is written, however it is written,
/// so that no later save fails for it.
@Suite struct StateKeyTests {
  static let source = """
    local json = require("composable.json")
    local keys = {
      table = function() return {} end,
      ["function"] = function() return print end,
      coroutine = function() return coroutine.create(print) end,
      userdata = function() return json.null end,
    }
    return {
      initial_state = function() return { t = {} } end,
      reduce = function(state, action)
        local key = keys[action.kind]()
        if action.how == "index" then state.t[key] = 1
        elseif action.how == "rawset" then rawset(state.t, key, 1)
        elseif action.how == "adopt" then state.u = { nested = { [key] = 1 } }
        end
      end,
    }
    """

  @Test(arguments: ["table", "function", "coroutine", "userdata"], ["index", "rawset", "adopt"])
  func aKeyThatIsNotDataIsRefusedAtTheWrite(kind: String, how: String) throws {
    let feature = try LuaFeature(source: Self.source, file: "keys.lua")
    do {
      try feature.step(["type": "write", "kind": .string(LuaString(kind)), "how": .string(LuaString(how))])
      Issue.record("\(kind) key written with \(how)")
    } catch {
      let name = kind == "userdata" ? "a light userdata" : "a \(kind)"
      #expect(
        error.description.contains("\(name) cannot be a state key (keys are strings, numbers and booleans)"),
        "\(error)")
    }
    #expect(try feature.state() == ["t": [:]])
  }

  @Test func anInitialStateWithAFunctionKeyIsRefusedNamingTheField() {
    let error = featureError {
      _ = try LuaFeature(
        source: """
          return {
            initial_state = function() return { a = { b = { [print] = 1 } } } end,
            reduce = function() end,
          }
          """, file: "initial.lua")
    }
    #expect(error?.description.contains("result #1.a.b") == true, "\(String(describing: error))")
    #expect(error?.description.contains("a function cannot be a state key") == true)
  }
}
