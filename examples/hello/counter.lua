local Counter = {}

function Counter.initial_state()
  return { count = 0 }
end

function Counter.reduce(state, action)
  if action.type == "increment" then
    state.count = state.count + 1
  elseif action.type == "decrement" then
    state.count = state.count - 1
  elseif action.type == "add" then
    state.count = state.count + action.amount
  else
    error("unknown action " .. tostring(action.type))
  end
end

function Counter.describe(action)
  if type(action) == "string" then return action end
  return action.type .. " " .. tostring(action.amount)
end

return Counter
