-- SyncUps, TCA's example app, in Lua: a list of sync-ups, an "add" sheet, and a navigation
-- stack of detail and record-meeting screens that hold the list's own sync-up tables (shared
-- state: an edit in the detail is an edit in the list). The list is kept in the host's data
-- directory (syncups.saved.lua) and comes back at the next start.
local composable = require("composable")
local Form = require("syncup_form")
local Detail = require("syncup_detail")
local Record = require("record_meeting")

local App = {}

App.actions = {
  "add_tapped", "confirm_add", "dismiss_add", "syncup_tapped", "path", "destination",
}

App.persist = composable.persist{ path = "syncups.saved.lua", select = "syncups" }

function App.initial_state()
  return { syncups = {}, path = composable.stack_state() }
end

local function index_of(syncups, id)
  for i, s in ipairs(syncups) do if s.id == id then return i end end
end

local function core(state, action, env)
  local t = action.type
  if t == "add_tapped" then
    state.destination = composable.present("add", {
      syncup = {
        id = env.uuid(), title = "", minutes = 5,
        attendees = { { id = env.uuid(), name = "" } }, meetings = {},
      },
    })
  elseif t == "confirm_add" then
    local d = state.destination
    if d == nil or d.screen ~= "add" then return end
    local syncup = Form.copy(d.state.syncup)
    syncup.attendees = Form.named_attendees(syncup.attendees)
    if #syncup.attendees == 0 then syncup.attendees = { { id = env.uuid(), name = "" } } end
    state.syncups[#state.syncups + 1] = syncup
    state.destination = nil
  elseif t == "dismiss_add" then
    state.destination = nil
  elseif t == "syncup_tapped" then
    local i = index_of(state.syncups, action.id)
    if i == nil then error("no sync-up with id " .. tostring(action.id)) end
    composable.push(state.path, "detail", { syncup = state.syncups[i] })
  elseif t == "path" and action.id ~= nil and action.action ~= nil then
    local child = composable.as_action(action.action)
    local screen = composable.screen(state.path, action.id)
    if child.type == "delegate_delete" and screen then
      local i = index_of(state.syncups, screen.state.syncup.id)
      if i then table.remove(state.syncups, i) end
    elseif child.type == "delegate_start_meeting" and screen then
      local id = composable.push(state.path, "record", {
        syncup = screen.state.syncup, seconds_elapsed = 0, speaker_index = 1,
      })
      return composable.effect.send{ type = "path", id = id, action = "on_appear" }
    end
  end
end

-- The children first, then the parent, as TCA runs them.
App.reduce = composable.combine(
  composable.stack{
    state = "path", action = "path", screens = { detail = Detail, record = Record },
  },
  composable.presents{
    state = "destination", action = "destination", destinations = { add = Form },
  },
  core
)

return App
