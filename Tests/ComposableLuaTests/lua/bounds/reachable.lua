-- The functions feature code reaches, by path, sorted: the globals (`_G` given), and the
-- functions of every table reached from them and from the host's libraries. For
-- LibraryBoundsEnumerationTests (cases.lua) and StateTablesToEveryFunctionTests (statecalls.lua).
return function(globals_table)
  local composable = require("composable")
  local functions, reached = {}, {}
  local function collect(prefix, value, depth)
    if type(value) == "function" then
      functions[#functions + 1] = { path = prefix, f = value }
    elseif type(value) == "table" and depth < 3 and not reached[value] then
      reached[value] = true
      for key, field in pairs(value) do
        if type(key) == "string" then
          collect(prefix == "" and key or prefix .. "." .. key, field, depth + 1)
        end
      end
    end
  end
  local globals = {}
  for name, value in pairs(globals_table) do
    if name ~= "_G" then globals[name] = value end
  end
  collect("", globals, 0)
  collect("composable", composable, 1)
  collect("composable.json", require("composable.json"), 1)
  collect("composable.journal", require("composable.journal"), 1)
  table.sort(functions, function(a, b) return a.path < b.path end)
  return functions
end
