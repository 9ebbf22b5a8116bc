-- For StateTablesToEveryFunctionTests: a reducer that calls every function feature code reaches
-- with state tables (proxies of each kind of reads) at each of its first four arguments and
-- every other argument from a small set of values, each call under pcall. The host must not
-- crash, whatever a C function assumed about how many arguments it gets or what they are.
local json = require("composable.json")

local functions = require("reachable")(_G)

-- Left out: a yield leaves the reducer, not the call.
local skipped = { ["coroutine.yield"] = true }

return {
  initial_state = function()
    return {
      flat = { x = 1, y = "two", done = false },
      list = { { id = 1 }, { id = 2 }, { id = 3 } },
      nested = { a = { b = { c = 1 } }, n = 2 },
      words = { "a", "b", "c" },
    }
  end,
  reduce = function(state, action)
    -- Read in an action before and in this one: each kind of reads a proxy has (flat reads, a
    -- view).
    for _ = 1, 3 do
      local _, _, _, _ = state.flat.x, state.list[2].id, state.nested.a.b.c, state.words[1]
    end
    if action.type ~= "call" then return end
    local tables = {
      function() return state.flat end, function() return state.list end,
      function() return state.nested end, function() return state.words end,
      function() return state.list[1] end, function() return state end,
      -- A table stored just now: a fresh proxy, whose table no read has looked at yet.
      function() state.fresh = { 1, { 2 } } return state.fresh end,
    }
    local others = {
      function() return math.mininteger end, function() return math.maxinteger end,
      function() return -1 end, function() return 0 end, function() return 1 end,
      function() return 2 end, function() return 2.5 end, function() return "x" end,
      function() return true end, function() return nil end, function() return {} end,
      function() return json.null end, function() return state.words end,
    }
    local calls, failed = 0, 0
    for _, entry in ipairs(functions) do
      if not skipped[entry.path] then
        for at = 1, 4 do
          for _, make in ipairs(tables) do
            for _, other in ipairs(others) do
              local arguments = {}
              for n = 1, 4 do arguments[n] = n == at and make() or other() end
              local ok = pcall(entry.f, arguments[1], arguments[2], arguments[3], arguments[4])
              calls = calls + 1
              if not ok then failed = failed + 1 end
            end
          end
        end
      end
    end
    state.calls = calls
    state.functions = #functions
  end,
}
