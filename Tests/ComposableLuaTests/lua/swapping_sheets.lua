-- A sheet that closes itself; its parent, seeing why (`swap`), presents another in its place,
-- of the same kind or another: the first sheet's dismiss must not close the second.
local composable = require("composable")

local function sheet(_, action)
  if action.type == "swap" or action.type == "close" then return composable.dismiss end
end

return {
  initial_state = function() return {} end,
  reduce = composable.combine(
    composable.presents{
      state = "destination", action = "destination", destinations = { a = sheet, b = sheet },
    },
    function(state, action)
      if action.type == "open" then
        state.destination = composable.present(action.screen, { n = action.n })
      elseif action.type == "destination" and composable.as_action(action.action).type == "swap"
      then
        state.destination = composable.present(action.screen_next, { n = 2 })
      end
    end),
}
