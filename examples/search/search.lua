-- Search as you type against an HTTP endpoint (`env.search_url`, served by `search-server`,
-- built beside `composable`). A search starts 300 ms after the last keystroke; a new query
-- cancels the request still in flight; results and errors land in the state.
local effect = require("composable.effect")

local Search = {}

function Search.initial_state()
  return { query = "", results = {}, searching = false }
end

-- Percent-encodes a query for a URL.
local function encode(text)
  return (text:gsub("[^%w%-_%.~]", function(c) return string.format("%%%02X", string.byte(c)) end))
end

function Search.reduce(state, action, env)
  local t = action.type
  if t == "query_changed" then
    state.query = action.query
    state.error = nil
    if action.query == "" then
      state.results = {}
      state.searching = false
      -- Both the request in flight and the one still waiting for the typing to pause.
      return effect.merge(effect.cancel("search"), effect.cancel("search_debounce"))
    end
    state.searching = true
    local request = effect.http{
      url = env.search_url .. "?q=" .. encode(action.query), response = "results_received",
    }
    return effect.merge(
      effect.cancel("search"),
      effect.debounce(effect.cancellable(request, "search"), "search_debounce", 0.3)
    )
  elseif t == "results_received" then
    state.searching = false
    if action.ok then
      state.results = action.json.results
    else
      state.error = action.error
    end
  end
end

return Search
