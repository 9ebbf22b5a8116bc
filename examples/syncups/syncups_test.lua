local TestStore = require("composable.test").TestStore
local App = require("syncups")

local U = function(n) return string.format("00000000-0000-0000-0000-%012d", n) end

-- The dialog the detail shows before deleting.
local function delete_dialog()
  return {
    screen = "confirmation_dialog",
    state = {
      title = "Delete?",
      message = "Are you sure you want to delete this sync-up?",
      buttons = {
        { label = "Yes", role = "destructive", action = { type = "confirm_delete" } },
        { label = "Nevermind", role = "cancel" },
      },
    },
  }
end

-- An action for the presented sheet, and one for the screen `id` on the stack.
local function sheet(action) return { type = "destination", action = action } end
local function screen(id, action) return { type = "path", id = id, action = action } end

-- A list with one sync-up, built as the app would have it.
local function one_syncup(minutes)
  return {
    id = U(100), title = "Daily", minutes = minutes or 1, meetings = {},
    attendees = { { id = U(101), name = "Blob" }, { id = U(102), name = "Jr" } },
  }
end

describe("add sheet", function()
  it("adds a sync-up through the form", function()
    local store = TestStore.new{ feature = App, files = {}, uuid = "incrementing" }
    store:send("add_tapped", function(s)
      s.destination = { screen = "add", state = { syncup = {
        id = U(0), title = "", minutes = 5, meetings = {},
        attendees = { { id = U(1), name = "" } },
      } } }
    end)
    store:send(sheet({ type = "set", field = "title", value = "Engineering" }), function(s)
      s.destination.state.syncup.title = "Engineering"
    end)
    store:send(sheet({ type = "set", field = "minutes", value = 10 }), function(s)
      s.destination.state.syncup.minutes = 10
    end)
    store:send(sheet({ type = "set_attendee", index = 1, name = "Blob" }), function(s)
      s.destination.state.syncup.attendees[1].name = "Blob"
    end)
    store:send({ type = "destination", action = "add_attendee" }, function(s)
      s.destination.state.syncup.attendees[2] = { id = U(2), name = "" }
    end)
    store:send({ type = "destination", action = "add_attendee" }, function(s)
      s.destination.state.syncup.attendees[3] = { id = U(3), name = "" }
    end)
    store:send(sheet({ type = "set_attendee", index = 3, name = "Blob Sr" }), function(s)
      s.destination.state.syncup.attendees[3].name = "Blob Sr"
    end)
    store:send(sheet({ type = "remove_attendee", index = 1 }), function(s)
      table.remove(s.destination.state.syncup.attendees, 1)
    end)
    -- attendee 1 is now the blank one (U(2)); it is dropped on confirm
    store:send("confirm_add", function(s)
      s.destination = nil
      s.syncups[1] = {
        id = U(0), title = "Engineering", minutes = 10, meetings = {},
        attendees = { { id = U(3), name = "Blob Sr" } },
      }
    end)
    store:advance(1)  -- the list is saved a second after the change
    store:finish()
  end)

  it("keeps one blank attendee when all are removed", function()
    local store = TestStore.new{ feature = App, files = {}, uuid = "incrementing" }
    store:send("add_tapped", function(s)
      s.destination = { screen = "add", state = { syncup = {
        id = U(0), title = "", minutes = 5, meetings = {}, attendees = { { id = U(1), name = "" } },
      } } }
    end)
    store:send(sheet({ type = "remove_attendee", index = 1 }), function(s)
      s.destination.state.syncup.attendees[1] = { id = U(2), name = "" }
    end)
  end)

  it("is cancelled by the parent", function()
    local store = TestStore.new{ feature = App, files = {}, uuid = "incrementing" }
    store:send("add_tapped", function(s)
      s.destination = { screen = "add", state = { syncup = {
        id = U(0), title = "", minutes = 5, meetings = {}, attendees = { { id = U(1), name = "" } },
      } } }
    end)
    store:send("dismiss_add", function(s) s.destination = nil end)
    assert.same({}, store.state.syncups)
  end)

  it("is cancelled by the form itself with composable.dismiss", function()
    local store = TestStore.new{ feature = App, files = {}, uuid = "incrementing" }
    store:send("add_tapped", function(s)
      s.destination = { screen = "add", state = { syncup = {
        id = U(0), title = "", minutes = 5, meetings = {}, attendees = { { id = U(1), name = "" } },
      } } }
    end)
    store:send({ type = "destination", action = "cancel" })
    store:receive({ type = "destination", action = { type = "dismiss" } }, function(s)
      s.destination = nil
    end)
    store:finish()
  end)

  it("refuses an unknown field and a value of the wrong type", function()
    local store = TestStore.new{ feature = App, files = {}, uuid = "incrementing" }
    store:send("add_tapped", function(s)
      s.destination = { screen = "add", state = { syncup = {
        id = U(0), title = "", minutes = 5, meetings = {}, attendees = { { id = U(1), name = "" } },
      } } }
    end)
    local n = expect_failure("unknown field titel", function()
      store:send(sheet({ type = "set", field = "titel", value = "x" }))
    end)
    assert.equal(1, n)
    n = expect_failure("minutes", function()
      store:send(sheet({ type = "set", field = "minutes", value = "ten" }))
    end)
    assert.equal(1, n)
    n = expect_failure("minutes", function()
      store:send(sheet({ type = "set", field = "minutes", value = 2.5 }))
    end)
    assert.equal(1, n)
    -- the failed actions were rolled back
    assert.equal(5, store.state.destination.state.syncup.minutes)
  end)

  it("ignores confirm_add with no sheet", function()
    local store = TestStore.new{ feature = App, files = {} }
    store:send("confirm_add")
  end)
end)

describe("detail", function()
  local function store_with_detail()
    local syncup = one_syncup()
    local store = TestStore.new{ feature = App, files = {}, uuid = "incrementing", state = {
      syncups = { syncup }, path = { screens = {}, next_id = 1 },
    } }
    store:send({ type = "syncup_tapped", id = U(100) }, function(s)
      s.path.next_id = 2
      s.path.screens[1] = { id = 1, screen = "detail", state = { syncup = s.syncups[1] } }
    end)
    return store
  end

  it("holds the list's own table", function()
    local store = store_with_detail()
    -- the same table at both places, in the store's state
    local st = store.state -- each read of store.state is a new copy: read it once
    assert.truthy(rawequal(st.syncups[1], st.path.screens[1].state.syncup))
  end)

  it("edits show in the list", function()
    local store = store_with_detail()
    store:send({ type = "path", id = 1, action = "edit_tapped" }, function(s)
      s.path.screens[1].state.destination = { screen = "edit", state = { syncup = one_syncup() } }
    end)
    store:send({ type = "path", id = 1, action = { type = "destination",
      action = { type = "set", field = "title", value = "Weekly" } } }, function(s)
      s.path.screens[1].state.destination.state.syncup.title = "Weekly"
    end)
    store:send({ type = "path", id = 1, action = { type = "destination",
      action = { type = "set", field = "minutes", value = 15 } } }, function(s)
      s.path.screens[1].state.destination.state.syncup.minutes = 15
    end)
    -- not yet in the list: the draft is a copy
    assert.equal("Daily", store.state.syncups[1].title)
    store:send({ type = "path", id = 1, action = "done_editing" }, function(s)
      s.path.screens[1].state.destination = nil
      s.syncups[1].title = "Weekly"
      s.syncups[1].minutes = 15
      s.syncups[1].attendees = { { id = U(101), name = "Blob" }, { id = U(102), name = "Jr" } }
    end)
    assert.equal("Weekly", store.state.syncups[1].title)
    assert.equal("Weekly", store.state.path.screens[1].state.syncup.title)
    store:advance(1)  -- the list is saved a second after the change
    store:finish()
  end)

  it("cancels an edit", function()
    local store = store_with_detail()
    store:send({ type = "path", id = 1, action = "edit_tapped" }, function(s)
      s.path.screens[1].state.destination = { screen = "edit", state = { syncup = one_syncup() } }
    end)
    store:send({ type = "path", id = 1, action = { type = "destination",
      action = { type = "set", field = "title", value = "Nope" } } }, function(s)
      s.path.screens[1].state.destination.state.syncup.title = "Nope"
    end)
    store:send({ type = "path", id = 1, action = "cancel_edit" }, function(s)
      s.path.screens[1].state.destination = nil
    end)
    assert.equal("Daily", store.state.syncups[1].title)
  end)

  it("deletes after confirmation and pops itself", function()
    local store = store_with_detail()
    store:send({ type = "path", id = 1, action = "delete_tapped" }, function(s)
      s.path.screens[1].state.destination = delete_dialog()
    end)
    store:send(screen(1, sheet({ type = "confirm_delete" })),
      function(s) s.path.screens[1].state.destination = nil end)
    store:receive({ type = "path", id = 1, action = { type = "delegate_delete" } }, function(s)
      table.remove(s.syncups, 1)
    end)
    store:receive({ type = "path", id = 1, action = { type = "dismiss" } }, function(s)
      s.path.screens[1] = nil
    end)
    store:advance(1)  -- the list is saved a second after the change
    store:finish()
    assert.same({}, store.state.syncups)
  end)

  it("keeps the sync-up when the dialog is dismissed", function()
    local store = store_with_detail()
    store:send({ type = "path", id = 1, action = "delete_tapped" }, function(s)
      s.path.screens[1].state.destination = delete_dialog()
    end)
    store:send(screen(1, sheet("dismiss")), function(s)
      s.path.screens[1].state.destination = nil
    end)
    store:finish()
  end)

  it("goes back with pop_from", function()
    local store = store_with_detail()
    store:send({ type = "path", pop_from = 1 }, function(s) s.path.screens[1] = nil end)
    -- an action for the popped screen is an error naming it
    expect_failure("path screen 1, which is not on the stack", function()
      store:send({ type = "path", id = 1, action = "edit_tapped" })
    end)
    -- ids are never used twice
    store:send({ type = "syncup_tapped", id = U(100) }, function(s)
      s.path.next_id = 3
      s.path.screens[1] = { id = 2, screen = "detail", state = { syncup = s.syncups[1] } }
    end)
  end)
end)

-- What the record screen asks before ending a meeting early.
local function end_alert()
  return { screen = "alert", state = {
    title = "End meeting?",
    message = "You are ending the meeting early. What would you like to do?",
    buttons = {
      { label = "Save and end", action = { type = "confirm_save" } },
      { label = "Discard", role = "destructive", action = { type = "confirm_discard" } },
      { label = "Resume", role = "cancel" },
    },
  } }
end

describe("record meeting", function()
  -- The app on the record screen of a sync-up of `minutes`; `service` (optional) is the
  -- transcript service, its env and its http.
  local function store_recording(minutes, attendees, service)
    local syncup = one_syncup(minutes)
    if attendees then syncup.attendees = attendees end
    local store = TestStore.new{
      feature = App, files = {}, uuid = "incrementing", now = 1700000000,
      env = service and service.env, http = service and service.http,
      state = {
        syncups = { syncup },
        path = {
          screens = { { id = 1, screen = "detail", state = { syncup = syncup } } }, next_id = 2,
        },
      },
    }
    store:send({ type = "path", id = 1, action = "start_meeting_tapped" })
    store:receive(screen(1, { type = "delegate_start_meeting" }), function(s)
      s.path.next_id = 3
      s.path.screens[2] = { id = 2, screen = "record", state = {
        syncup = s.syncups[1], seconds_elapsed = 0, speaker_index = 1,
      } }
    end)
    -- The parent sent `action = "on_appear"` (a child action in short): received either way.
    store:receive(screen(2, "on_appear"))
    return store
  end

  local function tick(store, n, speaker)
    store:receive({ type = "path", id = 2, action = { type = "tick" } }, function(s)
      s.path.screens[2].state.seconds_elapsed = n
      if speaker then s.path.screens[2].state.speaker_index = speaker end
    end)
  end

  it("shares the sync-up with the list and the detail", function()
    local store = store_recording(1)
    local st = store.state
    assert.truthy(rawequal(st.syncups[1], st.path.screens[2].state.syncup))
    assert.truthy(rawequal(st.path.screens[1].state.syncup, st.path.screens[2].state.syncup))
    store:skip_in_flight_effects()
  end)

  it("ticks every second and dismisses itself at the end", function()
    local store = store_recording(1)
    local timer = 'effect.every with id { id = "timer", scope = { element = 2, stack = "path" } }'
    assert.same({ timer }, store:effects_in_flight())
    store:advance(60)
    for n = 1, 59 do tick(store, n, n < 30 and 1 or 2) end
    store:receive({ type = "path", id = 2, action = { type = "tick" } }, function(s)
      s.path.screens[2].state.seconds_elapsed = 60
      s.syncups[1].meetings[1] = { id = U(0), date = 1700000000, transcript = "N/A" }
    end)
    store:receive({ type = "path", id = 2, action = { type = "dismiss" } }, function(s)
      s.path.screens[2] = nil
    end)
    -- the meeting shows in the list and the detail
    assert.equal(1, #store.state.syncups[1].meetings)
    assert.equal(1, #store.state.path.screens[1].state.syncup.meetings)
    -- the timer went with the screen
    store:advance(5)
    store:finish()
  end)

  -- A transcript service that answers `status` with `body`, keeping the requests it got.
  local function transcripts(status, body)
    local requests = {}
    return {
      env = { transcript_url = "http://transcripts.test/meetings" },
      requests = requests,
      http = function(request)
        requests[#requests + 1] = request
        return { status = status, headers = { ["content-type"] = "application/json" }, body = body }
      end,
    }
  end

  -- The action the service's answer arrives as.
  local function received(status, body, json)
    local ok = status >= 200 and status < 300
    return screen(2, {
      type = "transcript_received", ok = ok, status = status, body = body, json = json,
      headers = { ["content-type"] = "application/json" },
      error = not ok and "HTTP " .. status or nil,
    })
  end

  local function end_by_time(store)
    store:advance(60)
    for n = 1, 59 do tick(store, n, n < 30 and 1 or 2) end
    store:receive({ type = "path", id = 2, action = { type = "tick" } }, function(s)
      s.path.screens[2].state.seconds_elapsed = 60
      s.path.screens[2].state.transcribing = true
    end)
  end

  it("sends an ended meeting for its transcript, and saves what comes back", function()
    local service = transcripts(200, '{ "transcript": "We shipped it." }')
    local store = store_recording(1, nil, service)
    end_by_time(store)
    store:receive(received(200, '{ "transcript": "We shipped it." }',
      { transcript = "We shipped it." }), function(s)
      s.path.screens[2].state.transcribing = nil
      s.syncups[1].meetings[1] = { id = U(0), date = 1700000000, transcript = "We shipped it." }
    end)
    store:receive(screen(2, "dismiss"), function(s) s.path.screens[2] = nil end)
    store:advance(1)  -- the save
    assert.equal(1, #service.requests)
    assert.equal("POST", service.requests[1].method)
    assert.equal("http://transcripts.test/meetings", service.requests[1].url)
    assert.same({ syncup = "Daily", seconds = 60 }, require("composable.json").decode(
      service.requests[1].body))
    store:finish()
  end)

  it("saves N/A when the transcript service fails", function()
    local store = store_recording(1, nil, transcripts(503, '{ "error": "busy" }'))
    end_by_time(store)
    store:receive(received(503, '{ "error": "busy" }', { error = "busy" }), function(s)
      s.path.screens[2].state.transcribing = nil
      s.syncups[1].meetings[1] = { id = U(0), date = 1700000000, transcript = "N/A" }
    end)
    store:receive(screen(2, "dismiss"), function(s) s.path.screens[2] = nil end)
    store:advance(1)  -- the save
    store:finish()
  end)

  it("waits for the transcript of a meeting ended early; its timer stops", function()
    local store = store_recording(1, nil, transcripts(200, '{ "transcript": "Short one." }'))
    store:send(screen(2, "end_meeting_tapped"), function(s)
      s.path.screens[2].state.destination = end_alert()
    end)
    store:send(screen(2, sheet({ type = "confirm_save" })), function(s)
      s.path.screens[2].state.destination = nil
      s.path.screens[2].state.transcribing = true
    end)
    store:receive(received(200, '{ "transcript": "Short one." }', { transcript = "Short one." }),
      function(s)
        s.path.screens[2].state.transcribing = nil
        s.syncups[1].meetings[1] = { id = U(0), date = 1700000000, transcript = "Short one." }
      end)
    store:receive(screen(2, "dismiss"), function(s) s.path.screens[2] = nil end)
    store:advance(5)
    store:finish()
  end)

  it("ends early and saves", function()
    local store = store_recording(1)
    store:advance(2)
    tick(store, 1); tick(store, 2)
    store:send({ type = "path", id = 2, action = "end_meeting_tapped" }, function(s)
      s.path.screens[2].state.destination = end_alert()
    end)
    -- ticks while the alert is up change nothing
    store:advance(1)
    store:receive({ type = "path", id = 2, action = { type = "tick" } })
    store:send(screen(2, sheet({ type = "confirm_save" })),
      function(s)
        s.path.screens[2].state.destination = nil
        s.syncups[1].meetings[1] = { id = U(0), date = 1700000000, transcript = "N/A" }
      end)
    store:receive({ type = "path", id = 2, action = { type = "dismiss" } }, function(s)
      s.path.screens[2] = nil
    end)
    store:advance(10)
    store:finish()
  end)

  it("ends early and discards", function()
    local store = store_recording(1)
    store:send({ type = "path", id = 2, action = "end_meeting_tapped" }, function(s)
      s.path.screens[2].state.destination = end_alert()
    end)
    store:send(screen(2, sheet({ type = "confirm_discard" })),
      function(s) s.path.screens[2].state.destination = nil end)
    store:receive({ type = "path", id = 2, action = { type = "dismiss" } }, function(s)
      s.path.screens[2] = nil
    end)
    assert.same({}, store.state.syncups[1].meetings)
    store:finish()
  end)

  it("resumes when the alert is dismissed", function()
    local store = store_recording(1)
    store:send({ type = "path", id = 2, action = "end_meeting_tapped" }, function(s)
      s.path.screens[2].state.destination = end_alert()
    end)
    store:send(screen(2, sheet("dismiss")),
      function(s) s.path.screens[2].state.destination = nil end)
    store:advance(1)
    tick(store, 1)
    -- back button: the timer is cancelled with the screen
    store:send({ type = "path", pop_from = 2 }, function(s) s.path.screens[2] = nil end)
    store:advance(5)
    store:finish()
  end)

  it("moves to the next speaker, and asks at the last one", function()
    local store = store_recording(1)
    store:send({ type = "path", id = 2, action = "next_speaker" }, function(s)
      s.path.screens[2].state.speaker_index = 2
      s.path.screens[2].state.seconds_elapsed = 30
    end)
    store:send({ type = "path", id = 2, action = "next_speaker" }, function(s)
      s.path.screens[2].state.destination = end_alert()
    end)
    store:skip_in_flight_effects()
  end)

  it("popping the detail pops the record screen above it and ends its timer", function()
    local store = store_recording(1)
    store:send({ type = "path", pop_from = 1 }, function(s)
      s.path.screens = {}
    end)
    store:advance(3)
    store:finish()
  end)
end)

describe("sync-ups from a saved list", function()
  it("starts from what the fixture directory holds, and saves an edit", function()
    local store = TestStore.new{ feature = App, files = "fixtures/saved" }
    assert.same("Design", store.state.syncups[1].title)
    assert.same(1, #store.state.syncups[1].meetings)
    store:send({ type = "syncup_tapped", id = "A" }, function(s)
      s.path.screens[1] = { id = 1, screen = "detail", state = { syncup = s.syncups[1] } }
      s.path.next_id = 2
    end)
    -- Opening a screen changes nothing saved: no save starts.
    assert.same({}, store:effects_in_flight())
    store:send(screen(1, "delete_tapped"), function(s)
      s.path.screens[1].state.destination = delete_dialog()
    end)
    store:send(screen(1, sheet("confirm_delete")), function(s)
      s.path.screens[1].state.destination = nil
    end)
    store:receive(screen(1, { type = "delegate_delete" }), function(s) s.syncups = {} end)
    store:receive(screen(1, { type = "dismiss" }), function(s) s.path.screens = {} end)
    store:advance(1)
    store:finish()
  end)
end)
