-- The form of a sync-up: used by the "add" sheet and the "edit" sheet.
-- State: { syncup = { id, title, minutes, attendees = { { id, name } }, meetings = {} } }
local composable = require("composable")

local Form = {}

Form.actions = { "set", "add_attendee", "remove_attendee", "set_attendee", "cancel" }

local function core(state, action, env)
  local syncup = state.syncup
  if action.type == "add_attendee" then
    syncup.attendees[#syncup.attendees + 1] = { id = env.uuid(), name = "" }
  elseif action.type == "remove_attendee" then
    table.remove(syncup.attendees, action.index)
    if #syncup.attendees == 0 then
      syncup.attendees[1] = { id = env.uuid(), name = "" }
    end
  elseif action.type == "set_attendee" then
    local attendee = syncup.attendees[action.index]
    if attendee == nil then error("no attendee at index " .. tostring(action.index)) end
    attendee.name = action.name
  elseif action.type == "cancel" then
    return composable.dismiss
  end
end

Form.reduce = composable.combine(
  composable.bindings{ action = "set", state = "syncup",
    fields = { title = "string", minutes = "integer" } },
  core
)

-- A plain copy of a sync-up (for a draft the user may cancel).
function Form.copy(syncup)
  local attendees = {}
  for i, a in ipairs(syncup.attendees) do attendees[i] = { id = a.id, name = a.name } end
  local meetings = {}
  for i, m in ipairs(syncup.meetings or {}) do
    meetings[i] = { id = m.id, date = m.date, transcript = m.transcript }
  end
  return {
    id = syncup.id, title = syncup.title, minutes = syncup.minutes,
    attendees = attendees, meetings = meetings,
  }
end

-- The attendees with a name (blank ones are dropped when the form is confirmed).
function Form.named_attendees(attendees)
  local kept = {}
  for _, a in ipairs(attendees) do
    if a.name:match("%S") then kept[#kept + 1] = { id = a.id, name = a.name } end
  end
  return kept
end

return Form
