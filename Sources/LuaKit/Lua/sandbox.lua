-- The trusted chunk that builds sandboxes, run once in the real global environment.

local pairs, ipairs, error, type, pcall, select = pairs, ipairs, error, type, pcall, select
local tostring = tostring
local load = load

-- The C side's makers of a sandbox's load, print and warn (BaseLibrary.c), taken out of the
-- real globals before any other chunk runs.
local tools = _G["luakit.sandbox_tools"]
_G["luakit.sandbox_tools"] = nil

local function copy(library)
  local result = {}
  for name, value in pairs(library) do result[name] = value end
  return result
end

local safe = {
  "assert", "error", "ipairs", "next", "pairs", "pcall", "xpcall", "select", "tonumber",
  "tostring", "type", "rawequal", "rawget", "rawset", "rawlen", "setmetatable", "getmetatable",
  "_VERSION",
}

return function(host_print, find_module, preloaded)
  local env = {}
  for _, name in ipairs(safe) do env[name] = _G[name] end
  -- The real string table (string.dump is gone from it): strings find their methods there,
  -- through their metatable, so a function added to `string` is a method of every string, as in
  -- plain Lua. It is shared by every sandbox of the VM, as strings are.
  env.string = string
  env.table = copy(table)
  env.math = copy(math)
  env.math.random, env.math.randomseed = nil, nil
  env.utf8 = copy(utf8)
  env.coroutine = copy(coroutine)
  env._G = env

  env.print = tools.print(host_print)
  env.warn = tools.warn(host_print)
  env.load = tools.load(env)
  -- Lua names a function in an error by where it finds it among the loaded modules when the
  -- call does not say (`pcall(load, {})`): the newest sandbox's are the VM's, so that its errors
  -- read "bad argument #1 to 'load'" as plain Lua's do. (Nothing trusted uses them: this chunk
  -- took its own `load` above.)
  _G.print, _G.warn, _G.load = env.print, env.warn, env.load

  -- As in plain Lua, the standard libraries are modules too: `require("utf8")` is `utf8`.
  local loaded = { _G = env, string = env.string, table = env.table, math = env.math,
    utf8 = env.utf8, coroutine = env.coroutine }
  for name, module in pairs(preloaded) do loaded[name] = module end
  env.require = function(...)
    local name = ...
    -- As Lua's luaL_checkstring: a number is its string, anything else is refused.
    if type(name) == "number" then
      name = tostring(name)
    elseif type(name) ~= "string" then
      local got = select("#", ...) == 0 and "no value" or type(name)
      error("bad argument #1 to 'require' (string expected, got " .. got .. ")", 2)
    end
    local module = loaded[name]
    if module ~= nil then return module end
    -- Errors point at the line that called require, not into this chunk.
    -- Bytecode ("b") comes only from the host's own library, compiled at build time.
    local found, source, chunkname, mode = pcall(find_module, name)
    if not found then error(source, 2) end
    if source == nil then error(chunkname, 2) end
    local chunk, message = load(source, chunkname, mode == "b" and "b" or "t", env)
    if chunk == nil then error(message, 2) end
    module = chunk(name)
    if module == nil then module = true end
    loaded[name] = module
    return module
  end

  return env
end
