-- The "record meeting" screen, pushed on the stack.
-- State: { syncup = <the shared sync-up>, seconds_elapsed = 0, speaker_index = 1,
-- destination = nil, transcribing = nil }
--
-- With `env.transcript_url` set, a meeting that ends is sent there (POST, JSON) and saved with
-- the transcript the answer holds (`{ "transcript": "..." }`), or "N/A" when there is none; the
-- screen waits for it, its timer stopped. Without it, the default, the meeting is saved at once
-- with "N/A".
local composable = require("composable")
local effect = composable.effect

local Record = {}

Record.actions = {
  "on_appear", "tick", "end_meeting_tapped", "next_speaker", "destination",
  "transcript_received",
}

local function duration(syncup) return syncup.minutes * 60 end

local function save_meeting(state, env, transcript)
  local meetings = state.syncup.meetings
  table.insert(meetings, 1, { id = env.uuid(), date = env.now(), transcript = transcript })
end

-- Ends the meeting and saves it: at once, or once the transcript service answers.
local function end_meeting(state, env)
  if env.transcript_url == nil then
    save_meeting(state, env, "N/A")
    return composable.dismiss
  end
  state.transcribing = true
  return effect.merge(
    effect.cancel("timer"),
    effect.http{
      method = "POST", url = env.transcript_url, response = "transcript_received",
      body = { syncup = state.syncup.title, seconds = state.seconds_elapsed },
    })
end

-- The transcript in a service's answer, or "N/A".
local function transcript_of(response)
  local body = response.ok and response.json
  if type(body) == "table" and type(body.transcript) == "string" then return body.transcript end
  return "N/A"
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
    -- paused while the alert is up
    if state.destination ~= nil or state.transcribing then return end
    state.seconds_elapsed = state.seconds_elapsed + 1
    local per_speaker = duration(state.syncup) / #state.syncup.attendees
    local speaker = math.min(#state.syncup.attendees, state.seconds_elapsed // per_speaker + 1)
    state.speaker_index = math.tointeger(speaker) or speaker
    if state.seconds_elapsed >= duration(state.syncup) then return end_meeting(state, env) end
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
      return end_meeting(state, env)
    elseif a.type == "confirm_discard" then
      return composable.dismiss
    end
  elseif t == "transcript_received" and state.transcribing then
    state.transcribing = nil
    save_meeting(state, env, transcript_of(action))
    return composable.dismiss
  end
end

Record.reduce = composable.combine(
  composable.presents{ state = "destination", action = "destination", destinations = {} },
  core
)

return Record
