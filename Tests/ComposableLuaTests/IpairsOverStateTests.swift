import ComposableLua
import LuaKit
import Testing

/// `ipairs` over a state's table reads its real table in place, handing out each nested table
/// as its proxy, as a read through `__index` does: the same elements in the same order as over
/// a plain table, also while the loop changes the array; what it hands out writes through the
/// journal; nothing real escapes; and over anything else it is Lua's own.
@Suite struct IpairsOverStateTests {
  static let source = """
    local F = {}
    function F.initial_state()
      return { list = { { n = 1 }, 2, { n = 3 }, "four", { n = 5 } } }
    end
    local function copy(list)
      local plain = {}
      for i, v in ipairs(list) do plain[i] = type(v) == "table" and { n = v.n } or v end
      return plain
    end
    -- Walks `list` with ipairs, changing it as `how` says at each step; the visit, as a string.
    local function walk(list, how)
      local seen = {}
      for i, v in ipairs(list) do
        seen[#seen + 1] = i .. "=" .. (type(v) == "table" and ("{" .. v.n .. "}") or tostring(v))
        if how == "remove" and i == 2 then table.remove(list, 1)
        elseif how == "insert" and i == 2 then table.insert(list, 3, { n = 9 })
        elseif how == "cut" and i == 2 then list[4] = nil
        elseif how == "grow" and #list < 8 then list[#list + 1] = #list + 1
        end
      end
      return table.concat(seen, " ")
    end
    function F.reduce(state, action)
      local t = action.type
      if t == "walk" then
        local plain = copy(state.list)
        local got, expected = walk(state.list, action.how), walk(plain, action.how)
        if got ~= expected then error("state " .. got .. " / plain " .. expected) end
        state.seen = got
      elseif t == "write_through" then
        for _, v in ipairs(state.list) do
          if type(v) == "table" then v.n = v.n * 10 end
        end
        if action.fail then error("rolled back") end
      elseif t == "identity" then
        for i, v in ipairs(state.list) do
          if type(v) == "table" and not rawequal(v, state.list[i]) then error("two proxies") end
        end
        local f, s, i = ipairs(state.list)
        if not rawequal(s, state.list) then error("the loop's state is not the proxy") end
        state.step = select("#", f(s, i))
      elseif t == "by_hand" then
        local f = ipairs(state.list)
        local ok, message = pcall(f, 1, 0)
        state.ok, state.message = ok, message
      elseif t == "plain_index" then
        local seen = {}
        local t2 = setmetatable({}, { __index = function(_, k) if k <= 3 then return k * 2 end end })
        for i, v in ipairs(t2) do seen[i] = v end
        state.seen = table.concat(seen, ",")
      end
    end
    return F
    """

  @Test(arguments: ["none", "remove", "insert", "cut", "grow"])
  func aLoopVisitsWhatAPlainTablesLoopVisits(_ how: String) throws {
    let feature = try LuaFeature(source: Self.source, file: "ipairs.lua")
    _ = try feature.step(["type": "walk", "how": .string(LuaString(how))])
    #expect(try feature.state()["seen"].stringValue?.isEmpty == false)
  }

  @Test func whatTheLoopHandsOutWritesThroughTheJournal() throws {
    let feature = try LuaFeature(source: Self.source, file: "ipairs.lua")
    let before = try feature.state()
    #expect(throws: LuaFeatureError.self) {
      try feature.step(["type": "write_through", "fail": true])
    }
    #expect(try feature.state() == before)
    _ = try feature.step("write_through")
    #expect(try feature.state()["list"][3]["n"] == 30)
  }

  @Test func theLoopHandsOutProxiesAndNothingReal() throws {
    let feature = try LuaFeature(source: Self.source, file: "ipairs.lua")
    _ = try feature.step("identity")
    #expect(try feature.state()["step"] == 2)
  }

  /// The step called by hand with something that is no table raises as Lua's does.
  @Test func theStepCalledByHandWithANumberRaises() throws {
    let feature = try LuaFeature(source: Self.source, file: "ipairs.lua")
    _ = try feature.step("by_hand")
    let state = try feature.state()
    #expect(state["ok"] == false)
    #expect(state["message"].stringValue?.contains("attempt to index a number value") == true)
  }

  @Test func overAnythingElseItIsLuasOwn() throws {
    let feature = try LuaFeature(source: Self.source, file: "ipairs.lua")
    _ = try feature.step("plain_index")
    #expect(try feature.state()["seen"] == "2,4,6")
  }
}
