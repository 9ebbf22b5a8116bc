-- A small feature with files, for the runner's own tests.
local effect = require("composable.effect")
return {
  initial_state = function() return { text = "" } end,
  reduce = function(state, action)
    if action.type == "load" then
      return effect.file.read{ path = "notes.txt", response = "loaded" }
    elseif action.type == "loaded" then
      state.text = action.ok and action.contents or ("error: " .. action.error)
    elseif action.type == "save" then
      state.text = action.text
      return effect.file.write{ path = "notes.txt", contents = action.text }
    end
  end,
}
