-- The trusted chunk that builds sandboxes, run once in the real global environment.

local pairs, ipairs, select, tostring, type, error = pairs, ipairs, select, tostring, type, error
local load, concat = load, table.concat

-- Strings share one metatable whose __index is the real string table; hide it.
getmetatable("").__metatable = false

local function copy(library, without)
  local result = {}
  for name, value in pairs(library) do
    if not (without and without[name]) then result[name] = value end
  end
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
  env.string = copy(string, { dump = true })
  env.table = copy(table)
  env.math = copy(math, { random = true, randomseed = true })
  env.utf8 = copy(utf8)
  env.coroutine = copy(coroutine)
  env._G = env

  env.print = function(...)
    local parts = {}
    for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
    host_print(concat(parts, "\t"))
  end

  env.load = function(chunk, name, _mode, environment)  -- any mode: text only, always
    if environment == nil then environment = env end
    return load(chunk, name, "t", environment)
  end

  local loaded = {}
  for name, module in pairs(preloaded) do loaded[name] = module end
  env.require = function(name)
    if type(name) ~= "string" then
      error("bad argument #1 to 'require' (string expected, got " .. type(name) .. ")", 2)
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
