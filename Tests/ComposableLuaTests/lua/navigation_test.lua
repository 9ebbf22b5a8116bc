-- composable.stack, composable.presents and composable.bindings through the TestStore.
local TestStore = require("composable.test").TestStore
local Meetings = require("meetings")

-- The alert `ask_delete` presents for the standup.
local function delete_alert()
  return {
    screen = "alert",
    state = {
      title = "Delete Standup?",
      buttons = {
        { label = "Delete", role = "destructive", action = { type = "delete", id = "a" } },
        { label = "Edit instead", action = "edit_instead" },
        { label = "Cancel", role = "cancel" },
      },
    },
  }
end

describe("a navigation stack", function()
  it("pushes screens with ids never used twice, and pops them", function()
    local store = TestStore.new{ feature = Meetings }
    store:send({ type = "open", id = "a" }, function(s)
      s.path.screens[1] =
        { id = 1, screen = "detail", state = { meeting = s.meetings[1], title = "" } }
      s.path.next_id = 2
    end)
    store:send({ type = "path", id = 1, action = { type = "rename", title = "x" } }, function(s)
      s.path.screens[1].state.title = "x"
    end)
    store:send({ type = "path", pop_from = 1 }, function(s) s.path.screens = {} end)
    store:send({ type = "open", id = "a" }, function(s)
      s.path.screens[1] =
        { id = 2, screen = "detail", state = { meeting = s.meetings[1], title = "" } }
      s.path.next_id = 3
    end)
    -- The first screen is gone: an action for it is an error naming it and those there.
    expect_failure("an action arrived for path screen 1, which is not on the stack %(its "
      .. "screens: 2%)", function()
      store:send({ type = "path", id = 1, action = { type = "rename", title = "y" } })
    end)
    -- An action of the stack's name that is none of its three says which they are.
    expect_failure('stack: { pop_to = 2, type = "path" } is no stack action: the stack takes '
      .. '{ type = "path", id = <a screen\'s id>, action = ... }, pop_from = <id> %(a back '
      .. 'button%), or push = { screen = <kind>, state = {...} }', function()
      store:send({ type = "path", pop_to = 2 })
    end)
  end)

  it("finds a screen by its id", function()
    local composable = require("composable")
    local stack = composable.stack_state()
    local first = composable.push(stack, "detail", { title = "a" })
    local second = composable.push(stack, "detail", { title = "b" })
    assert.equal("b", composable.screen(stack, second).state.title)
    assert.equal(first, composable.screen(stack, first).id)
    assert.is_nil(composable.screen(stack, 99))
    assert.is_nil(composable.screen(stack, "1"))
    composable.pop(stack)
    assert.is_nil(composable.screen(stack, second))
    assert.has_error(function() composable.screen({}, 1) end)
  end)

  it("shares the meeting between the list and the detail", function()
    local store = TestStore.new{ feature = Meetings }
    store:send({ type = "open", id = "a" }, function(s)
      s.path.screens[1] =
        { id = 1, screen = "detail", state = { meeting = s.meetings[1], title = "" } }
      s.path.next_id = 2
    end)
    local state = store.state
    assert.is_true(rawequal(state.meetings[1], state.path.screens[1].state.meeting))
  end)

  it("runs a screen's timer until it dismisses itself, and cancels it when popped", function()
    local store = TestStore.new{ feature = Meetings }
    store:send({ type = "time", limit = 2 }, function(s)
      s.path.screens[1] = { id = 1, screen = "timer", state = { seconds = 0, limit = 2 } }
      s.path.next_id = 2
    end)
    store:send({ type = "path", id = 1, action = "start" })
    store:advance(1)
    store:receive({ type = "path", id = 1, action = { type = "tick" } }, function(s)
      s.path.screens[1].state.seconds = 1
    end)
    store:advance(1)
    store:receive({ type = "path", id = 1, action = { type = "tick" } }, function(s)
      s.path.screens[1].state.seconds = 2
    end)
    store:receive({ type = "path", id = 1, action = { type = "dismiss" } }, function(s)
      s.path.screens = {}
    end)
    -- The timer ended with its screen: nothing more arrives.
    store:advance(5)
    store:finish()
  end)

  it("pops a screen with a timer from the back button, ending the timer", function()
    local store = TestStore.new{ feature = Meetings }
    store:send({ type = "time" }, function(s)
      s.path.screens[1] = { id = 1, screen = "timer", state = { seconds = 0, limit = 3 } }
      s.path.next_id = 2
    end)
    store:send({ type = "path", id = 1, action = "start" })
    store:send({ type = "path", pop_from = 1 }, function(s) s.path.screens = {} end)
    store:advance(5)
    store:finish()
  end)

  it("pushes from a link action and refuses an unknown kind", function()
    local store = TestStore.new{ feature = Meetings }
    store:send({ type = "path", push = { screen = "timer", state = { seconds = 0, limit = 9 } } },
      function(s)
        s.path.screens[1] = { id = 1, screen = "timer", state = { seconds = 0, limit = 9 } }
        s.path.next_id = 2
      end)
    expect_failure("got a screen of kind settings, and the kinds are detail, timer", function()
      store:send({ type = "path", push = { screen = "settings" } })
    end)
  end)
end)

describe("actions an effect sends with a child in short", function()
  it("are received written either way", function()
    local store = TestStore.new{ feature = Meetings }
    store:send({ type = "open", id = "a" }, function(s)
      s.path.screens[1] =
        { id = 1, screen = "detail", state = { meeting = s.meetings[1], title = "" } }
      s.path.next_id = 2
    end)
    store:send({ type = "poke", id = 1 })
    store:receive({ type = "path", id = 1, action = "touch" }, function(s)
      s.path.screens[1].state.touched = true
    end)
    store:send({ type = "poke", id = 1 })
    store:receive({ type = "path", id = 1, action = { type = "touch" } })
  end)
end)

describe("a stack's or a presentation's kinds", function()
  local composable = require("composable")

  it("are checked, the error naming the line that declared them", function()
    local function declared(f)
      local ok, message = pcall(f)
      assert.is_false(ok)
      return message
    end
    local message = declared(function()
      composable.stack{ state = "path", action = "path", screens = { detail = 42 } }
    end)
    assert.truthy(message:find("navigation_test.lua:%d+: stack: screen detail: reducer must be "
      .. "a function or a table with a reduce function, got number"), message)
    message = declared(function()
      composable.stack{ state = "path", action = "path", screens = { function() end } }
    end)
    assert.truthy(message:find("navigation_test.lua:%d+: stack: a screen kind must be a string"),
      message)
    message = declared(function()
      composable.presents{ state = "d", action = "d", destinations = { alert = function() end } }
    end)
    assert.truthy(message:find("navigation_test.lua:%d+: presents: alert is built in"), message)
    message = declared(function()
      composable.presents{ state = "d", action = "d", destinations = { edit = "x" } }
    end)
    assert.truthy(message:find("navigation_test.lua:%d+: presents: destination edit: reducer"),
      message)
  end)
end)

describe("stack functions", function()
  it("pop to a screen keeps it on top; an id not there names the ids that are", function()
    local store = TestStore.new{ feature = Meetings }
    store:send({ type = "time", limit = 5 }, function(s)
      s.path.screens[1] = { id = 1, screen = "timer", state = { seconds = 0, limit = 5 } }
      s.path.next_id = 2
    end)
    store:send({ type = "time", limit = 6 }, function(s)
      s.path.screens[2] = { id = 2, screen = "timer", state = { seconds = 0, limit = 6 } }
      s.path.next_id = 3
    end)
    store:send({ type = "back_to", id = 1 }, function(s) s.path.screens[2] = nil end)
    -- A screen's dismiss that arrives after it is gone does nothing.
    store:send({ type = "path", id = 2, action = "dismiss" })
    expect_failure("pop_to: no screen 7 on the stack %(its screens: 1%)", function()
      store:send({ type = "back_to", id = 7 })
    end)
    expect_failure("pop_from = 9: no screen 9 on path %(its screens: 1%)", function()
      store:send({ type = "path", pop_from = 9 })
    end)
  end)
end)

describe("a dismiss from a child that was replaced", function()
  local App = require("swapping_sheets")

  for _, next_screen in ipairs({ "a", "b" }) do
    it("does not close what the parent presented in its place (" .. next_screen .. ")", function()
      local store = TestStore.new{ feature = App }
      store:send({ type = "open", screen = "a", n = 1 }, function(s)
        s.destination = { screen = "a", state = { n = 1 } }
      end)
      store:send({ type = "destination", action = "swap", screen_next = next_screen }, function(s)
        s.destination = { screen = next_screen, state = { n = 2 } }
      end)
      -- The first sheet's dismiss arrives, and is its own: the new sheet stays.
      store:receive({ type = "destination", action = "dismiss" })
      -- The new sheet's own dismiss closes it.
      store:send({ type = "destination", action = "close" })
      store:receive({ type = "destination", action = "dismiss" }, function(s)
        s.destination = nil
      end)
      store:finish()
    end)
  end
end)

describe("a dismiss from a child whose container the parent removed", function()
  local App = require("row_sheets")
  local delete = { type = "destination", action = "delete" }

  it("does nothing for a row's sheet", function()
    local store = TestStore.new{ feature = App }
    store:send({ type = "row", id = 1, action = delete }, function(s) s.rows = {} end)
    store:receive({ type = "row", id = 1, action = { type = "destination", action = "dismiss" } })
    -- An action for the row that is not a dismiss is still an error.
    expect_failure("element 1, which is not there", function()
      store:send({ type = "row", id = 1, action = { type = "destination", action = "x" } })
    end)
  end)

  it("does nothing for a screen's sheet", function()
    local store = TestStore.new{ feature = App }
    store:send("open", function(s)
      s.path.screens[1] = { id = 1, screen = "row", state = {
        destination = { screen = "edit", state = {} } } }
      s.path.next_id = 2
    end)
    store:send({ type = "path", id = 1, action = delete }, function(s) s.path.screens = {} end)
    store:receive({ type = "path", id = 1, action = { type = "destination", action = "dismiss" } })
  end)

  it("does nothing for an if_let child's sheet", function()
    local store = TestStore.new{ feature = App }
    store:send({ type = "child", action = delete }, function(s) s.child = nil end)
    store:receive({ type = "child", action = { type = "destination", action = "dismiss" } })
  end)
end)

describe("navigation state written by hand", function()
  local App = require("hand_written_navigation")

  it("reaches the other screens of a stack that holds a NaN id", function()
    local store = TestStore.new{ feature = App }
    store:send("open_two", function(s)
      s.path.next_id = 3
      s.path.screens = {
        { id = 0 / 0, screen = "s", state = {} }, { id = 2, screen = "s", state = {} },
      }
    end)
    store:send({ type = "path", id = 2, action = "inc" }, function(s)
      s.path.screens[2].state.n = 1
    end)
  end)

  it("names what a dialog with no state has no button for", function()
    local store = TestStore.new{ feature = App }
    store:send("bare_alert", function(s) s.destination = { screen = "alert" } end)
    expect_failure("the alert in state.destination has no button that sends "
      .. '{ type = "yes" }; its buttons send nothing', function()
      store:send({ type = "destination", action = "yes" })
    end)
  end)
end)

describe("a presented destination", function()
  it("fails an action when nothing is presented", function()
    local store = TestStore.new{ feature = Meetings }
    expect_failure("an action arrived for state.destination, which presents nothing", function()
      store:send({ type = "destination", action = { type = "set", field = "title", value = "x" } })
    end)
    -- A dismiss of nothing does nothing: what it asks for is so already.
    store:send({ type = "destination", action = "dismiss" })
  end)

  it("refuses an action none of a dialog's buttons sends; a button with none dismisses", function()
    local store = TestStore.new{ feature = Meetings }
    store:send({ type = "ask_delete", id = "a" }, function(s) s.destination = delete_alert() end)
    expect_failure('has no button that sends { type = "bogus" }; its buttons send '
      .. '{ id = "a", type = "delete" }, { type = "edit_instead" }', function()
        store:send({ type = "destination", action = "bogus" })
      end)
    store:send({ type = "destination", action = "dismiss" }, function(s) s.destination = nil end)
  end)

  it("keeps what the parent presents in answer to a dialog's button", function()
    local store = TestStore.new{ feature = Meetings }
    store:send({ type = "ask_delete", id = "a" }, function(s)
      s.destination = delete_alert()
    end)
    store:send({ type = "destination", action = "edit_instead" }, function(s)
      s.destination = { screen = "edit", state = { title = "?", minutes = 0 } }
    end)
  end)

  it("edits through bindings and saves", function()
    local store = TestStore.new{ feature = Meetings }
    store:send({ type = "edit", id = "a" }, function(s)
      s.destination = { screen = "edit", state = { title = "Standup", minutes = 15 } }
    end)
    local rename = { type = "set", field = "title", value = "Daily" }
    store:send({ type = "destination", action = rename }, function(s)
      s.destination.state.title = "Daily"
    end)
    store:send({ type = "destination", action = { type = "set", field = "notes", value = nil } })
    store:send({ type = "save", id = "a" }, function(s)
      s.meetings[1].title = "Daily"
      s.destination = nil
    end)
  end)

  it("refuses an unknown field and a value of the wrong type, naming them", function()
    local store = TestStore.new{ feature = Meetings }
    store:send({ type = "edit", id = "a" }, function(s)
      s.destination = { screen = "edit", state = { title = "Standup", minutes = 15 } }
    end)
    local function set(field, value)
      store:send({ type = "destination", action = { type = "set", field = field, value = value } })
    end
    expect_failure("unknown field titel; the fields are minutes, notes, title", function()
      set("titel", "x")
    end)
    expect_failure("state.minutes takes an integer, got number", function() set("minutes", 1.5) end)
    expect_failure("state.title takes a string, got nil", function() set("title", nil) end)
  end)

  it("is dismissed by a swipe", function()
    local store = TestStore.new{ feature = Meetings }
    store:send({ type = "edit", id = "a" }, function(s)
      s.destination = { screen = "edit", state = { title = "Standup", minutes = 15 } }
    end)
    store:send({ type = "destination", action = "dismiss" }, function(s) s.destination = nil end)
  end)

  it("asks before deleting: the button's action reaches the parent, then the alert closes",
    function()
      local store = TestStore.new{ feature = Meetings }
      store:send({ type = "ask_delete", id = "a" }, function(s)
        s.destination = delete_alert()
      end)
      store:send({ type = "destination", action = { type = "delete", id = "a" } }, function(s)
        s.meetings = {}
        s.destination = nil
      end)
      assert.same({}, store.state.meetings)
    end)
end)
