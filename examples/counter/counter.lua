-- The counter with a number fact, as a Lua feature.
--
-- With `env.fact_url` set, the fact comes from that URL (the count appended) over HTTP. Without
-- it, the default, the fact is made here, offline, after a short pause.
local effect = require("composable.effect")

local Counter = {}

function Counter.initial_state()
  return { count = 0 }
end

function Counter.reduce(state, action, env)
  if action.type == "increment" then
    state.count = state.count + 1
  elseif action.type == "decrement" then
    state.count = state.count - 1
  elseif action.type == "fact_button_tapped" then
    state.is_loading = true
    if env.fact_url then
      return effect.http{ url = env.fact_url .. state.count, response = "fact_response" }
    end
    local fact = string.format("%d is a good number.", state.count)
    return effect.after(0.5, { type = "fact_response", ok = true, body = fact })
  elseif action.type == "fact_response" then
    state.is_loading = nil
    state.fact = action.ok and action.body or "Could not load a number fact :("
  end
end

return Counter
