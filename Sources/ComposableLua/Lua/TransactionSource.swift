/// The trusted chunk that makes reducers transactional, run once per VM outside any sandbox.
///
/// The reducer gets a proxy of the state instead of the state: reads go through to the real
/// tables (wrapping nested tables in proxies of their own, made once and cached), and every
/// write is applied at once and journaled as (table, key, old value) in a flat array. After a
/// failed action the host runs `rollback`, which puts the old values back newest first; the
/// journal of a good action is forgotten when the next one starts. The cost is proportional to what the reducer
/// touches, never to the size of the state.
///
/// What a proxy does not see: `rawget`/`rawset`/`next` on the proxy itself (they bypass
/// metamethods). `pairs`, `ipairs`, `#`, `table.insert`, `table.remove` and `table.sort` all
/// work, because Lua 5.4 routes them through metamethods.
let transactionSource = #"""
local rawget, rawset, type, next, setmetatable = rawget, rawset, type, next, setmetatable
local REAL = {}                                  -- the key under which a proxy keeps its table
local proxies = setmetatable({}, { __mode = "k" })
local journal, count = {}, 0
local meta = { __metatable = "composable.state" }

local function wrap(value)
  if type(value) ~= "table" then return value end
  local proxy = proxies[value]
  if proxy == nil then
    proxy = setmetatable({ [REAL] = value }, meta)
    proxies[value] = proxy
  end
  return proxy
end

-- A value stored into the state must hold real tables, not proxies, all the way down.
local function unwrap(value, seen)
  if type(value) ~= "table" then return value end
  local real = rawget(value, REAL)
  if real ~= nil then return real end
  seen = seen or {}
  if seen[value] then return value end
  seen[value] = true
  for key, inner in next, value do
    if type(inner) == "table" then
      local plain = unwrap(inner, seen)
      if plain ~= inner then rawset(value, key, plain) end
    end
  end
  return value
end

meta.__index = function(proxy, key)
  local value = rawget(proxy, REAL)[key]
  if type(value) == "table" then return wrap(value) end
  return value
end

meta.__newindex = function(proxy, key, value)
  local real = rawget(proxy, REAL)
  local n = count
  journal[n + 1], journal[n + 2], journal[n + 3] = real, key, rawget(real, key)
  count = n + 3
  if type(value) == "table" then value = unwrap(value) end
  rawset(real, key, value)
end

meta.__len = function(proxy) return #rawget(proxy, REAL) end

meta.__pairs = function(proxy)
  local real = rawget(proxy, REAL)
  return function(_, key)
    local nextKey, value = next(real, key)
    return nextKey, wrap(value)
  end, proxy, nil
end

local function commit()
  for i = 1, count do journal[i] = nil end
  count = 0
end

local function rollback()
  for i = count, 1, -3 do rawset(journal[i - 2], journal[i - 1], journal[i]) end
  commit()
end

-- reduce(feature_reduce, state, action, env) -> effect
-- The journal of the previous action is forgotten first: that action succeeded (a failed one
-- was rolled back already), so a rollback now undoes this action and nothing before it.
local function reduce(feature_reduce, state, action, env)
  if count > 0 then commit() end
  return feature_reduce(wrap(state), action, env)
end

-- step(action): one action of one feature, its reducer, state and env bound once.
local function stepper(feature_reduce, state, env)
  local proxy = wrap(state)
  return function(action)
    if count > 0 then commit() end
    -- Checked here, where it costs one type() call, rather than in Swift.
    if type(action) == "string" then
      action = { type = action }
    elseif type(action) ~= "table" or type(action.type) ~= "string" then
      error("action: expected an action (a table with a string type, or a string), got "
        .. (type(action) == "table" and "a table whose type is " .. type(action.type) or type(action)), 0)
    end
    return feature_reduce(proxy, action, env)
  end
end

-- written(): whether the last action wrote to the state (its journal is kept until the next).
local function written() return count > 0 end

return reduce, commit, rollback, wrap, unwrap, stepper, written
"""#
