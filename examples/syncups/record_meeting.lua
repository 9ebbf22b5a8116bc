-- The "record meeting" screen, pushed on the stack.
-- State: { syncup = <the shared sync-up>, seconds_elapsed = 0, speaker_index = 1,
-- destination = nil }
local composable = require("composable")
local effect = composable.effect

local Record = {}

Record.actions = { "on_appear", "tick", "end_meeting_tapped", "next_speaker", "destination" }

local function duration(syncup) return syncup.minutes * 60 end

local function save_meeting(state, env)
  local meetings = state.syncup.meetings
  table.insert(meetings, 1, { id = env.uuid(), date = env.now(), transcript = "N/A" })
end

-- What ending a meeting early asks (the end button, or "next" at the last speaker).
local function end_meeting_alert()
  return composable.alert{
    title = "End meeting?",
    message = "You are ending the meeting early. What would you like to do?",
    buttons = {
      { label = "Save and end", action = { type = "confirm_save" } },
      { label = "Discard", role = "destructive", action = { type = "confirm_discard" } },
      { label = "Resume", role = "cancel" },
    },
  }
end

local function core(state, action, env)
  local t = action.type
  if t == "on_appear" then
    return effect.cancellable(effect.every(1, "tick"), "timer")
  elseif t == "tick" then
    if state.destination ~= nil then return end -- paused while the alert is up
    state.seconds_elapsed = state.seconds_elapsed + 1
    local per_speaker = duration(state.syncup) / #state.syncup.attendees
    local speaker = math.min(#state.syncup.attendees, state.seconds_elapsed // per_speaker + 1)
    state.speaker_index = math.tointeger(speaker) or speaker
    if state.seconds_elapsed >= duration(state.syncup) then
      save_meeting(state, env)
      return composable.dismiss
    end
  elseif t == "next_speaker" then
    if state.speaker_index >= #state.syncup.attendees then
      state.destination = end_meeting_alert()
      return
    end
    state.speaker_index = state.speaker_index + 1
    local per_speaker = duration(state.syncup) // #state.syncup.attendees
    state.seconds_elapsed = (state.speaker_index - 1) * per_speaker
  elseif t == "end_meeting_tapped" then
    state.destination = end_meeting_alert()
  elseif t == "destination" then
    local a = composable.as_action(action.action)
    if a.type == "confirm_save" then
      save_meeting(state, env)
      return composable.dismiss
    elseif a.type == "confirm_discard" then
      return composable.dismiss
    end
  end
end

Record.reduce = composable.combine(
  composable.presents{ state = "destination", action = "destination", destinations = {} },
  core
)

return Record
