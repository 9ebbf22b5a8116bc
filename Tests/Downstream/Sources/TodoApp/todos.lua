-- A todo list as a Lua feature: the app's Swift code sends it actions and reads its state.
local effect = require("composable.effect")

local Todos = {}

function Todos.initial_state()
  return { todos = {}, next_id = 1 }
end

function Todos.reduce(state, action)
  if action.type == "add" then
    state.todos[#state.todos + 1] = { id = state.next_id, title = action.title, done = false }
    state.next_id = state.next_id + 1
    return effect.after(0.01, "sort")
  elseif action.type == "toggle" then
    for _, todo in ipairs(state.todos) do
      if todo.id == action.id then todo.done = not todo.done end
    end
  elseif action.type == "sort" then
    table.sort(state.todos, function(a, b)
      if a.done ~= b.done then return not a.done end
      return a.id < b.id
    end)
  end
end

return Todos
