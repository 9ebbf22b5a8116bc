-- The detail screen of a sync-up, pushed on the stack. Its `syncup` is the list's table.
-- State: { syncup = <shared>, destination = nil }
local composable = require("composable")
local effect = composable.effect
local Form = require("syncup_form")

local Detail = {}

Detail.actions = { "edit_tapped", "cancel_edit", "done_editing", "delete_tapped",
  "start_meeting_tapped", "destination", "delegate_delete", "delegate_start_meeting" }

local function core(state, action)
  local t = action.type
  if t == "edit_tapped" then
    state.destination = composable.present("edit", { syncup = Form.copy(state.syncup) })
  elseif t == "cancel_edit" then
    state.destination = nil
  elseif t == "done_editing" then
    local d = state.destination
    if d == nil or d.screen ~= "edit" then return end
    local draft = d.state.syncup
    -- Write field by field: `state.syncup = draft` would only replace the detail's reference.
    state.syncup.title = draft.title
    state.syncup.minutes = draft.minutes
    state.syncup.attendees = Form.named_attendees(draft.attendees)
    state.destination = nil
  elseif t == "delete_tapped" then
    state.destination = composable.confirmation_dialog{
      title = "Delete?",
      message = "Are you sure you want to delete this sync-up?",
      buttons = {
        { label = "Yes", role = "destructive", action = { type = "confirm_delete" } },
        { label = "Nevermind", role = "cancel" },
      },
    }
  elseif t == "start_meeting_tapped" then
    return effect.send{ type = "delegate_start_meeting" }
  elseif t == "destination" then
    if composable.as_action(action.action).type == "confirm_delete" then
      return effect.concat(effect.send{ type = "delegate_delete" }, composable.dismiss)
    end
  end
end

Detail.reduce = composable.combine(
  composable.presents{
    state = "destination", action = "destination", destinations = { edit = Form },
  },
  core
)

return Detail
