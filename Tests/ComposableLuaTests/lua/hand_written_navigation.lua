-- Navigation state written by hand, not through push or alert: a screen whose id is NaN, a
-- dialog with no state. The library reads them without tripping over them.
local composable = require("composable")

local function screen(state, action)
  if action.type == "inc" then state.n = (state.n or 0) + 1 end
end

return {
  initial_state = function() return { path = composable.stack_state() } end,
  reduce = composable.combine(
    composable.stack{ state = "path", action = "path", screens = { s = screen } },
    composable.presents{ state = "destination", action = "destination" },
    function(state, action)
      if action.type == "open_two" then
        composable.push(state.path, "s")
        composable.push(state.path, "s")
        state.path.screens[1].id = 0 / 0
      elseif action.type == "bare_alert" then
        state.destination = { screen = "alert" }
      end
    end),
}
