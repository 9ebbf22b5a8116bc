-- One todo: its own reducer, run by `for_each` on the element with the action's id.
local Todo = {}

function Todo.reduce(todo, action)
  if action.type == "toggled" then
    todo.done = not todo.done
  elseif action.type == "edited" then
    if type(action.title) ~= "string" then error("edited needs a title string") end
    todo.title = action.title
  end
end

return Todo
