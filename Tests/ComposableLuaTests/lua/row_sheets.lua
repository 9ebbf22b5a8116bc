-- Rows that each present a sheet; the sheet's "delete" closes it, and the parent removes the
-- row in that same action (a row, a screen, an if_let child): the dismiss that arrives then is
-- for a child that is gone.
local composable = require("composable")

local function sheet(_, action)
  if action.type == "delete" then return composable.dismiss end
end

local row = composable.presents{
  state = "destination", action = "destination", destinations = { edit = sheet },
}

return {
  initial_state = function()
    return {
      rows = { { id = 1, destination = composable.present("edit") } },
      path = composable.stack_state(),
      child = { destination = composable.present("edit") },
    }
  end,
  reduce = composable.combine(
    composable.for_each{ state = "rows", action = "row", reducer = row },
    composable.stack{ state = "path", action = "path", screens = { row = row } },
    composable.if_let{ state = "child", action = "child", reducer = row },
    function(state, action)
      local deleting = type(action.action) == "table" and action.action.type == "destination"
        and composable.as_action(action.action.action).type == "delete"
      if action.type == "open" then
        composable.push(state.path, "row", { destination = composable.present("edit") })
      elseif deleting and action.type == "row" then
        table.remove(state.rows, 1)
      elseif deleting and action.type == "path" then
        composable.pop_from(state.path, action.id)
      elseif deleting and action.type == "child" then
        state.child = nil
      end
    end),
}
