-- A counter, the feature counter_test.lua pins down.
local Counter = {}
function Counter.initial_state() return { count = 0 } end
function Counter.reduce(state, action)
  if action.type == "increment" then state.count = state.count + 1 end
end
return Counter
