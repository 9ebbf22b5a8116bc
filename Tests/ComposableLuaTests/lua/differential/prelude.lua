-- The prelude of a differential run (LuaDifferentialTests): the same on every side (plain
-- `lua5.4`, the feature sandbox, a feature's reduce), so that what a generated program prints
-- differs only where the implementations do. `S` is set by the side: the identity, or a function
-- that stores the table it is given in a feature's state (which makes it a state table).
local report = ...

-- A value as text, the same in every Lua: integers apart from floats, strings quoted, tables
-- by their keys in order (Lua leaves the order of `pairs` unspecified), addresses left out.
local function show(value, depth)
  local kind = type(value)
  if kind == "number" then
    if math.type(value) == "integer" then return string.format("%d", value) end
    if value ~= value then return "nan" end
    return string.format("%.17g", value) .. "f"
  elseif kind == "string" then
    -- %q breaks a line with "\" and a newline: kept on one line, as "\n".
    return (string.format("%q", value):gsub("0x%x+", "0x?"):gsub("\\\n", "\\n"))
  elseif kind == "table" then
    if depth > 2 then return "{...}" end
    local keys = {}
    for key in next, value do keys[#keys + 1] = key end
    table.sort(keys, function(a, b)
      local ta, tb = type(a), type(b)
      if ta ~= tb then return ta < tb end
      if ta == "number" or ta == "string" then return a < b end
      return tostring(a) < tostring(b)
    end)
    local parts = {}
    for i, key in ipairs(keys) do
      parts[i] = "[" .. show(key, depth + 1) .. "]=" .. show(rawget(value, key), depth + 1)
    end
    return "{" .. table.concat(parts, ",") .. "}"
  elseif kind == "nil" or kind == "boolean" then
    return tostring(value)
  end
  return kind
end

-- Prints what it is given, each value shown.
function out(...)
  local parts = {}
  for i = 1, select("#", ...) do parts[i] = show((select(i, ...)), 0) end
  report(table.concat(parts, " "))
end

-- Program `n`: its output after a line of its own, then its error, if it raised one.
function case(n, body)
  report("## " .. n)
  local ok, message = pcall(body)
  if not ok then report("!! " .. show(message, 0)) end
end
