-- A todos list: add, toggle, edit, delete, and completed todos sorted to the bottom one second
-- after the last toggle (a debounce, so a burst of toggles sorts once). The list is kept in the
-- host's data directory (todos.saved.lua) and comes back at the next start.
local composable = require("composable")
local effect = composable.effect
local Todo = require("todo")

local Todos = {}

function Todos.initial_state()
  return { todos = {}, filter = "all" }
end

-- A child action may be written as a table or, for short, as its type.
local function child_type(action)
  local child = action.action
  if type(child) == "string" then return child end
  return child and child.type
end

local function list(state, action, env)
  local t = action.type
  if t == "add" then
    table.insert(state.todos, 1, { id = env.uuid(), title = action.title or "", done = false })
  elseif t == "delete" then
    for i, todo in ipairs(state.todos) do
      if todo.id == action.id then table.remove(state.todos, i) break end
    end
  elseif t == "clear_completed" then
    for i = #state.todos, 1, -1 do
      if state.todos[i].done then table.remove(state.todos, i) end
    end
  elseif t == "todo" and child_type(action) == "toggled" then
    return effect.debounce(effect.send("sort"), "sort", 1)
  elseif t == "sort" then
    -- A stable sort: open todos keep their order, then done ones keep theirs.
    local open, done = {}, {}
    for _, todo in ipairs(state.todos) do
      table.insert(todo.done and done or open, todo)
    end
    local n = 0
    for _, group in ipairs({ open, done }) do
      for _, todo in ipairs(group) do
        n = n + 1
        state.todos[n] = todo
      end
    end
  end
end

Todos.persist = composable.persist{ path = "todos.saved.lua", select = "todos" }

Todos.reduce = composable.combine(
  list,
  composable.for_each{ state = "todos", action = "todo", reducer = Todo }
)

return Todos
