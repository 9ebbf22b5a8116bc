-- A small app for the navigation tests: a list of meetings, a stack of detail and timer
-- screens, an edit sheet with form bindings, and a delete confirmation.
local composable = require("composable")
local effect = composable.effect

local Edit = composable.bindings{
  action = "set", fields = { title = "string", minutes = "integer", notes = "string?" },
}

local Timer = {}
function Timer.reduce(timer, action)
  if action.type == "start" then
    return effect.cancellable(effect.every(1, "tick"), "ticking")
  elseif action.type == "tick" then
    timer.seconds = timer.seconds + 1
    if timer.seconds >= timer.limit then return composable.dismiss end
  elseif action.type == "leave" then
    return composable.dismiss
  end
end

local Detail = {}
function Detail.reduce(detail, action)
  if action.type == "rename" then detail.title = action.title
  elseif action.type == "touch" then detail.touched = true
  end
end

local Meetings = {}

function Meetings.initial_state()
  return {
    meetings = { { id = "a", title = "Standup", minutes = 15 } },
    path = composable.stack_state(),
    destination = nil,
  }
end

local function meeting(state, id)
  for i, m in ipairs(state.meetings) do
    if m.id == id then return m, i end
  end
end

local function app(state, action)
  local t = action.type
  if t == "open" then
    composable.push(state.path, "detail", { meeting = meeting(state, action.id), title = "" })
  elseif t == "time" then
    composable.push(state.path, "timer", { seconds = 0, limit = action.limit or 3 })
  elseif t == "edit" then
    local m = meeting(state, action.id)
    state.destination = composable.present("edit", { title = m.title, minutes = m.minutes })
  elseif t == "ask_delete" then
    state.destination = composable.alert{
      title = "Delete " .. meeting(state, action.id).title .. "?",
      buttons = {
        { label = "Delete", role = "destructive", action = { type = "delete", id = action.id } },
        { label = "Edit instead", action = "edit_instead" },
        { label = "Cancel", role = "cancel" },
      },
    }
  elseif t == "destination" then
    local child = composable.as_action(action.action)
    if child.type == "delete" then
      local _, i = meeting(state, child.id)
      table.remove(state.meetings, i)
    elseif child.type == "edit_instead" then
      state.destination = composable.present("edit", { title = "?", minutes = 0 })
    end
  elseif t == "poke" then
    -- A composition's action with its child in short, sent by an effect.
    return effect.send({ type = "path", id = action.id, action = "touch" })
  elseif t == "back_to" then
    composable.pop_to(state.path, action.id)
  elseif t == "save" and state.destination and state.destination.screen == "edit" then
    local m = meeting(state, action.id)
    m.title = state.destination.state.title
    m.minutes = state.destination.state.minutes
    state.destination = nil
  end
end

-- The children first, then the parent, as TCA runs them (docs/lua-api.md).
Meetings.reduce = composable.combine(
  composable.stack{
    state = "path", action = "path", screens = { detail = Detail, timer = Timer },
  },
  composable.presents{
    state = "destination", action = "destination", destinations = { edit = Edit },
  },
  app
)

return Meetings
