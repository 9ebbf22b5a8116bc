local TestStore = require("composable.test").TestStore
local Todos = require("todos")

local function id(n) return string.format("00000000-0000-0000-0000-%012X", n) end

describe("todos", function()
  local store
  before_each(function()
    store = TestStore.new{ feature = Todos, uuid = "incrementing", files = {} }
  end)

  after_each(function()
    store:advance(1)  -- the list is saved a second after the last change
    store:finish()
  end)

  it("adds, edits and deletes", function()
    store:send({ type = "add", title = "milk" }, function(s)
      s.todos = { { id = id(0), title = "milk", done = false } }
    end)
    local edit = { type = "todo", id = id(0), action = { type = "edited", title = "oat milk" } }
    store:send(edit, function(s)
      s.todos[1].title = "oat milk"
    end)
    store:send({ type = "delete", id = id(0) }, function(s) s.todos = {} end)
  end)

  it("sorts completed todos to the bottom a second after the last toggle", function()
    for n, title in ipairs({ "c", "b", "a" }) do
      store:send({ type = "add", title = title }, function(s)
        table.insert(s.todos, 1, { id = id(n - 1), title = title, done = false })
      end)
    end
    store:send({ type = "todo", id = id(2), action = "toggled" }, function(s)
      s.todos[1].done = true
    end)
    store:advance(0.5)
    store:send({ type = "todo", id = id(1), action = "toggled" }, function(s)
      s.todos[2].done = true
    end)
    store:advance(0.999)
    store:advance(0.001)
    store:receive("sort", function(s)
      s.todos = {
        { id = id(0), title = "c", done = false },
        { id = id(2), title = "a", done = true },
        { id = id(1), title = "b", done = true },
      }
    end)
  end)
end)

describe("todos from a saved list", function()
  it("starts from what the fixture directory holds", function()
    local store = TestStore.new{ feature = Todos, files = "fixtures/saved" }
    assert.same({ { done = false, id = "A", title = "from last time" } }, store.state.todos)
    store:send({ type = "todo", id = "A", action = "toggled" }, function(s)
      s.todos[1].done = true
    end)
    store:advance(1)
    store:receive("sort")  -- one todo: nothing moves
    store:advance(1)
    store:finish()
  end)
end)
