-- A first taste: a counter reducer, fed a few actions, in the sandbox the host gives features.
-- The real Store arrives with the runtime; this shows Lua state changing action by action.
local Counter = require("counter")

local state = Counter.initial_state()
for _, action in ipairs({ "increment", "increment", { type = "add", amount = 40 }, "decrement" }) do
  Counter.reduce(state, type(action) == "string" and { type = action } or action)
  print(string.format("%-28s count = %d", Counter.describe(action), state.count))
end
return state
