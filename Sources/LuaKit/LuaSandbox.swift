/// An environment for feature code: the safe part of the standard library and nothing else.
///
/// Present: `assert error ipairs next pairs pcall xpcall select tonumber tostring type
/// rawequal rawget rawset rawlen setmetatable getmetatable`, and copies of `string` (without
/// `dump`), `table`, `math` (without `random`/`randomseed`: reducers get seeded randomness from
/// the host), `utf8` and `coroutine`. These are the VM's own versions (LuaSupport): `next`,
/// `pairs`, `rawget`, `rawset` and `rawlen` understand state proxies and never show their
/// hidden keys, `setmetatable` refuses `__gc` (a finalizer would run outside every budget),
/// and the library functions that loop in C charge their work to the instruction budget.
/// Replaced: `print` goes to the host, `load` compiles text only and defaults to this
/// environment, `require` loads only the modules the host allows.
/// Absent: `io`, `os`, `debug`, `package`, `dofile`, `loadfile`, `collectgarbage`.
///
/// Each sandbox is a fresh table: one sandbox's globals never leak into another's, and the
/// libraries are copies, so changing `string.format` in one changes nothing elsewhere. The
/// string metatable is protected, so `getmetatable("")` reveals nothing either.
public struct LuaSandbox {
  public struct Configuration {
    /// Where `print` goes: one line per call, arguments joined by tabs.
    public var print: (String) -> Void
    /// The modules `require` may load; nil allows none.
    public var modules: (any LuaModuleResolver)?
    /// Modules given as values rather than source (a table of host functions, say):
    /// `require(name)` returns the value as it is.
    public var preloaded: [String: LuaValue]

    public init(
      print: @escaping (String) -> Void = { Swift.print($0) },
      modules: (any LuaModuleResolver)? = nil,
      preloaded: [String: LuaValue] = [:]
    ) {
      self.print = print
      self.modules = modules
      self.preloaded = preloaded
    }
  }

  /// The environment table; chunks loaded `in:` this sandbox see it as their globals.
  public let environment: LuaReference
  public let configuration: Configuration
}

/// The trusted chunk that builds sandboxes, run once in the real global environment.
let sandboxBootstrap = #"""
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

  env.load = function(chunk, name, mode, environment)
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
    local found, source, chunkname = pcall(find_module, name)
    if not found then error(source, 2) end
    if source == nil then error(chunkname, 2) end
    local chunk, message = load(source, chunkname, "t", env)
    if chunk == nil then error(message, 2) end
    module = chunk(name)
    if module == nil then module = true end
    loaded[name] = module
    return module
  end

  return env
end
"""#
