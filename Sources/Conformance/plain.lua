-- The plain-Lua side of the conformance run, under `lua5.4`:
--   lua5.4 plain.lua transform FILE [state]   prints FILE rewritten (statements.lua)
--   lua5.4 plain.lua run REWRITTEN NAME DIR   runs it with the globals a sandbox has
-- The environment holds what the sandbox gives feature code (docs/lua-api.md) and no more:
-- what it leaves out fails the same way on both sides.
local here = arg[0]:match("^(.*)/[^/]*$") or "."
package.path = here .. "/?.lua;" .. package.path
local statements = require("statements")

local open = io.open
local function read(path)
  local file = assert(open(path, "rb"))
  local text = file:read("a")
  file:close()
  return text
end

if arg[1] == "transform" then
  io.write((statements.transform(read(arg[2]), arg[3] == "state")))
  return
end

local rewritten, name, directory = read(arg[2]), arg[3], arg[4]
-- The real globals, cut down to what a sandbox has (its `load` is Lua's own then, so errors
-- name and place it as the sandbox's does, and a chunk's default environment is these).
local kept = {}
for _, global in ipairs({ "assert", "error", "ipairs", "next", "pairs", "pcall", "xpcall",
  "select", "tonumber", "tostring", "type", "rawequal", "rawget", "rawset", "rawlen",
  "setmetatable", "getmetatable", "_VERSION", "print", "warn", "load", "string", "table",
  "math", "utf8", "coroutine", "_G" }) do
  kept[global] = true
end
local stdout = io.stdout
for global in pairs(_G) do
  if not kept[global] then _G[global] = nil end
end
string.dump, math.random, math.randomseed = nil, nil, nil
local loaded = { _G = _G, string = string, table = table, math = math, utf8 = utf8,
  coroutine = coroutine }
require = function(module)
  if loaded[module] ~= nil then return loaded[module] end
  local chunk = assert(load(read(directory .. "/" .. module .. ".lua"), "@" .. module .. ".lua"))
  loaded[module] = chunk(module) or true
  return loaded[module]
end
warn("@off")
stdout:setvbuf("line")
assert(load(read(here .. "/harness.lua"), "=harness"))(print)
local chunk, message = load(rewritten, "=" .. name)
if not chunk then
  print("@@ 0 0 error " .. message)
  return
end
chunk()
