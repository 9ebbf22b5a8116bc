-- `composable`: composing reducers in Lua.
--
-- - `combine(r1, r2, ...)` runs reducers in order on the same state and action, merging their
--   effects.
-- - `scope{ state = "child", action = "child", reducer = Child }` runs `Child` on
--   `state.child` for actions `{ type = "child", action = ... }`; its effects' actions come
--   back wrapped the same way.
-- - `if_let{ ... }` is `scope` for a child that may be absent: the child's effects are
--   cancelled when it goes.
-- - `for_each{ state = "todos", action = "todo", reducer = Todo }` runs `Todo` on the element
--   with `id` for actions `{ type = "todo", id = ..., action = ... }`. Lookup by id is O(1) (an
--   index kept beside the array, rebuilt only when stale); the effects of an element are
--   cancelled when it is removed, checked once the whole action has been reduced, only for
--   elements that started effects, so its place in `combine` does not matter. A child's
--   cancel ids are its own (scoped to the element, or to the `if_let` child).
-- - `on_change{ of = function(state) ... end, run = function(old, new, state, env) ... end,
--   reducer = base }` runs `run` when `of(state)` changed.
-- - `persist{ path = "todos.saved.lua", select = "todos" }`, set as the feature's `persist`, has
--   the host save the state (or that field) after actions that change it, and restore it at
--   start.
-- A reducer in all of these is a function `(state, action, env)` or a table with `reduce`.

local effect = require("composable.effect")
-- Bookkeeping that must stay true to the state lives in journaled tables: a failed action
-- undoes its changes to them as it undoes its changes to the state.
local journal = require("composable.journal")
-- What the state held when the action began. Outside a host (plain `lua5.4`, a stub journal)
-- there is no transaction: nothing was removed by this action, so a child not there never was.
local was_set = journal.was_set or function() return false end
local had_element = journal.had_element or function() return false end

local composable = { effect = effect }

local function reducer_of(reducer, where)
  if type(reducer) == "function" then return reducer end
  if type(reducer) == "table" and type(reducer.reduce) == "function" then return reducer.reduce end
  error(where .. ": reducer must be a function or a table with a reduce function, got "
    .. type(reducer), 3)
end

local function field_of(spec, name, where)
  local value = spec[name]
  if type(value) ~= "string" then
    error(where .. ": " .. name .. " must be a string, got " .. type(value), 3)
  end
  return value
end

-- An effect whose actions are passed through `wrap` on their way to the store: `wrap` goes into
-- the `wrappers` of each effect that carries actions (outermost first), and the host applies
-- them, innermost first, to every action, whatever the kind (LuaFeature.wrap): the actions of
-- send, after and every when it reads the effect, those of run, http and file as they arrive.
-- Whether `e` does something: nil and effect.none do not; anything else does, a value that is no
-- effect included (the host refuses it, naming it).
local function acts(e)
  return e ~= nil and (type(e) ~= "table" or e.kind ~= "none")
end

-- Whatever is not an effect (a number, a list with a hole, a misspelt field) is kept as it is,
-- for the host to refuse naming it, as it would straight from a reducer.
local function mapped_list(e, map)
  local mapped = {}
  for k, v in pairs(e) do mapped[k] = v end
  if type(e.effects) == "table" then
    local effects = {}
    for k, inner in pairs(e.effects) do effects[k] = map(inner) end
    mapped.effects = effects
  end
  return mapped
end

local function map_effect(e, wrap)
  if type(e) ~= "table" or e.kind == "none" then return e end
  local kind = e.kind
  if kind == "merge" or kind == "concat" then
    return mapped_list(e, function(inner) return map_effect(inner, wrap) end)
  elseif kind == "cancellable" or kind == "debounce" or kind == "throttle" then
    local mapped = {}
    for k, v in pairs(e) do mapped[k] = v end
    mapped.effect = map_effect(e.effect, wrap)
    return mapped
  else
    local mapped = {}
    for k, v in pairs(e) do mapped[k] = v end
    local wrappers = { wrap }
    for i, w in ipairs(e.wrappers or {}) do wrappers[i + 1] = w end
    mapped.wrappers = wrappers
    return mapped
  end
end
composable.map_effect = map_effect

-- One effect for a list of them: nil for none, the effect itself for one, a merge for more.
local function merged(effects)
  if #effects == 0 then return nil end
  if #effects == 1 then return effects[1] end
  return { kind = "merge", effects = effects }
end

-- The action shorthand, as the host reads it (LuaAction in Swift; ActionShapeInStepTests keeps
-- the two in step): a bare string is `{ type = s }`.
local function as_action(action)
  if type(action) == "string" then return { type = action } end
  return action
end
composable.as_action = as_action

-- Checks that run once the whole action has been reduced, whatever the reducers did after the
-- composition that asked for them: a parent that removes a child in `combine` after `for_each`
-- or `if_let` ran still has the child's effects cancelled. The host runs them through
-- `journal.finish_step`, which a feature that builds a `for_each` or an `if_let` gets (a
-- composition used where no host step runs, as under plain `lua5.4`, checks at once instead).
local finishing = nil  -- the checks of the action being reduced, or nil outside a step

-- The compositions the reducer now running is inside (for_each elements, if_let children),
-- outermost first: each with its `key` (where it is) and the `scope` its children's cancel
-- ids get. A composition keeps its bookkeeping
-- per place (`place_key`), so one for_each inside two elements of another keeps two; and a
-- check that runs after the action is wrapped by the compositions it was asked from, as the
-- child's own effects are.
local inside = {}

-- A level's key, made when a composition inside it first asks (most levels have none inside).
local function key_of(level)
  local key = level.key
  if key == nil then
    local id = level.id
    key = level.kind .. "\0" .. level.field .. "\0" .. type(id) .. ":" .. tostring(id)
    level.key = key
  end
  return key
end

local function place_key()
  if #inside == 0 then return "" end  -- the root: what nearly every action asks
  local keys = {}
  for i, level in ipairs(inside) do keys[i] = key_of(level) end
  return table.concat(keys, "\0")
end

-- The scope a level gives its children's cancel ids, made when first needed.
local function scope_of(level)
  local scope = level.scope
  if scope == nil then
    scope = { for_each = level.field, element = level.id }
    level.scope = scope
  end
  return scope
end

-- Per depth, a value whose __close leaves the levels above that depth, made once: so that an
-- error out of a child (caught by a pcall in a reducer, say) leaves `inside` as it found it.
local leaving = {}
local function leave_to(depth)
  local closer = leaving[depth]
  if closer == nil then
    closer = setmetatable({}, { __close = function()
      for i = #inside, depth + 1, -1 do inside[i] = nil end
    end })
    leaving[depth] = closer
  end
  return closer
end

-- reduce(child, action, env), run inside `level`.
local function run_inside(level, reduce, child, action, env)
  local depth = #inside
  local _ <close> = leave_to(depth)
  inside[depth + 1] = level
  local result = reduce(child, action, env)
  return result
end

local no_levels = {}  -- the levels of a check asked for at the root (never written)

local function after_action(check)
  if finishing == nil then return false end
  local levels = no_levels
  if #inside > 0 then
    levels = {}
    for i, level in ipairs(inside) do levels[i] = level end
  end
  finishing[#finishing + 1] = { check = check, levels = levels }
  return true
end

local scope_ids

local function finish_step(reduce)
  return function(state, action, env)
    local checks = {}
    finishing = checks
    if #inside > 0 then inside = {} end  -- (an error out of a step leaves none: the closers)
    local result = reduce(state, action, env)
    finishing = nil
    if #checks == 0 then return result end
    local effects = {}
    if acts(result) then effects[1] = result end
    for _, pending in ipairs(checks) do
      local e = pending.check()
      -- Cancels (what a check gives) carry no actions: their ids are scoped, nothing wrapped.
      for i = #pending.levels, 1, -1 do e = scope_ids(e, scope_of(pending.levels[i])) end
      if e ~= nil then effects[#effects + 1] = e end
    end
    return merged(effects)
  end
end

local function needs_finishing() journal.finish_step = finish_step end

-- Cancel ids of a child's effects, scoped to the child: `{ scope = scope, id = id }`, so that
-- element "b" cancelling "timer" cancels its own timer, not element "a"'s (as TCA does).
function scope_ids(e, scope)
  if type(e) ~= "table" then return e end
  local kind = e.kind
  if kind == "merge" or kind == "concat" then
    return mapped_list(e, function(inner) return scope_ids(inner, scope) end)
  elseif kind == "cancellable" or kind == "debounce" or kind == "throttle" or kind == "cancel" then
    local mapped = {}
    for k, v in pairs(e) do mapped[k] = v end
    -- No id stays none: the host says that one is missing.
    if e.id ~= nil then mapped.id = { scope = scope, id = e.id } end
    if e.effect ~= nil then mapped.effect = scope_ids(e.effect, scope) end
    return mapped
  end
  return e
end

function composable.combine(...)
  local reducers = {}
  for i = 1, select("#", ...) do reducers[i] = reducer_of((select(i, ...)), "combine") end
  return function(state, action, env)
    local effects = {}
    for _, reduce in ipairs(reducers) do
      local e = reduce(state, action, env)
      if acts(e) then effects[#effects + 1] = e end
    end
    return merged(effects)
  end
end

-- What scope and if_let read from their spec: the child's state field, its action type, its
-- reducer, and the wrapper that makes its actions the parent's.
local function child_of(spec, what)
  local field = field_of(spec, "state", what)
  local name = field_of(spec, "action", what)
  local reduce = reducer_of(spec.reducer, what)
  local function wrap(action) return { type = name, action = as_action(action) } end
  return field, name, reduce, wrap
end

function composable.scope(spec)
  local field, name, reduce, wrap = child_of(spec, "scope")
  return function(state, action, env)
    if action.type ~= name then return nil end
    local child = state[field]
    if child == nil then error("scope: state." .. field .. " is nil", 2) end
    return map_effect(reduce(child, as_action(action.action), env), wrap)
  end
end

function composable.if_let(spec)
  local field, name, reduce, wrap = child_of(spec, "if_let")
  local id = "if_let:" .. field
  local scope = { if_let = field }
  local level = { key = "if_let\0" .. field, scope = scope }
  local running = journal.table()  -- running[place]: the child there started effects
  needs_finishing()
  return function(state, action, env)
    local effects = {}
    local place = place_key()
    if action.type == name then
      local child = state[field]
      if child ~= nil then
        local e = run_inside(level, reduce, child, as_action(action.action), env)
        if acts(e) then
          running[place] = true
          effects[1] = effect.cancellable(scope_ids(map_effect(e, wrap), scope), id)
        end
      elseif not was_set(state, field) then
        error("if_let: a child action arrived while state." .. field .. " is nil", 2)
      end
      -- (Dismissed earlier in this action, by the parent: nothing to run, its effects end.)
    end
    -- (With no effects running here there is nothing to end: no check.)
    if running[place] then
      local function dismissed()
        if running[place] and state[field] == nil then
          running[place] = nil
          return effect.cancel(id)
        end
      end
      if not after_action(dismissed) then effects[#effects + 1] = dismissed() end
    end
    return merged(effects)
  end
end

function composable.for_each(spec)
  local field = field_of(spec, "state", "for_each")
  local name = field_of(spec, "action", "for_each")
  local reduce = reducer_of(spec.reducer, "for_each")
  -- The array -> { id -> position }: a cache, checked on every use, so a rolled-back action
  -- cannot make it lie.
  local indexes = setmetatable({}, { __mode = "k" })
  -- place .. "\0" .. the id's type and text -> the id, for each element whose effects may
  -- be running, in each place this for_each runs (inside another composition's elements).
  local active = journal.table()
  local function active_key(place, id) return place .. "\0" .. type(id) .. ":" .. tostring(id) end
  needs_finishing()

  local function find(elements, id)
    local index = indexes[elements]
    local position = index and index[id]
    if position ~= nil then
      local element = elements[position]
      if element ~= nil and element.id == id then return element end
    end
    index = {}
    for i, element in ipairs(elements) do index[element.id] = i end
    indexes[elements] = index
    position = index[id]
    return position and elements[position]
  end

  local function effect_id(id) return "for_each:" .. field .. ":" .. tostring(id) end

  return function(state, action, env)
    local elements = state[field]
    if elements == nil then error("for_each: state." .. field .. " is nil", 2) end
    local effects = {}
    local place = place_key()
    if action.type == name then
      local id = action.id
      local element = find(elements, id)
      if element ~= nil then
        -- (Its key and scope are made when asked for: key_of, scope_of.)
        local level = { kind = "for_each", field = field, id = id }
        local e = run_inside(level, reduce, element, as_action(action.action), env)
        if acts(e) then
          active[active_key(place, id)] = id
          local function wrap(child) return { type = name, id = id, action = as_action(child) } end
          local scoped = scope_ids(map_effect(e, wrap), scope_of(level))
          effects[#effects + 1] = effect.cancellable(scoped, effect_id(id))
        end
      elseif not had_element(state, field, "id", id) then
        error("for_each: an action arrived for " .. field .. " element " .. tostring(id)
          .. ", which is not there", 2)
      end
      -- (Removed earlier in this action, by the parent: nothing to run, its effects end.)
    end
    -- (With no element's effects running anywhere there is nothing to end: no check.)
    local step, over, start = pairs(active)
    if step(over, start) == nil then return merged(effects) end
    local function removed()
      local now = state[field]
      local cancels = {}
      local prefix = place .. "\0"
      for key, id in pairs(active) do
        if key:sub(1, #prefix) == prefix and (now == nil or find(now, id) == nil) then
          active[key] = nil
          cancels[#cancels + 1] = effect.cancel(effect_id(id))
        end
      end
      return merged(cancels)
    end
    if not after_action(removed) then effects[#effects + 1] = removed() end
    return merged(effects)
  end
end

-- Feature.persist = composable.persist{ path = "todos.saved.lua", select = "todos", debounce = 1 }:
-- the host saves the state (or its `select` field) to `path`, `debounce` seconds after the first
-- change not yet saved (0: after every action that changed it), and restores it at start. With
-- `is_duplicate = function(old, new) ... end`, a save whose value it calls a duplicate of the
-- last one saved (or restored; nil before any) is skipped.
function composable.persist(spec)
  if type(spec) ~= "table" then error("persist: expected a table, got " .. type(spec), 2) end
  if type(spec.path) ~= "string" then
    error("persist: path must be a string, got " .. type(spec.path), 2)
  end
  if spec.select ~= nil and type(spec.select) ~= "string" then
    error("persist: select must be the name of a state field, got " .. type(spec.select), 2)
  end
  if spec.debounce ~= nil and type(spec.debounce) ~= "number" then
    error("persist: debounce must be a number of seconds, got " .. type(spec.debounce), 2)
  end
  if spec.is_duplicate ~= nil and type(spec.is_duplicate) ~= "function" then
    error("persist: is_duplicate must be a function(old, new), got " .. type(spec.is_duplicate), 2)
  end
  return {
    path = spec.path, select = spec.select, debounce = spec.debounce or 1,
    is_duplicate = spec.is_duplicate,
  }
end

-- A plain copy of `v`, a table of the state (shared tables stay shared): `on_change`'s old
-- value, which the reducer's writes in place must not change.
local function snapshot(v, copies)
  if type(v) ~= "table" then return v end
  copies = copies or {}
  if copies[v] ~= nil then return copies[v] end
  local copy = {}
  copies[v] = copy
  for k, x in pairs(v) do copy[snapshot(k, copies)] = snapshot(x, copies) end
  return copy
end

-- Whether `a` and `b` are equal as values: tables by their contents, whatever their identity.
local function same_value(a, b, pairs_seen)
  if type(a) ~= "table" or type(b) ~= "table" then
    return a == b and math.type(a) == math.type(b)
  end
  if rawequal(a, b) then return true end
  pairs_seen = pairs_seen or {}
  local seen = pairs_seen[a]
  if seen == nil then
    seen = {}
    pairs_seen[a] = seen
  elseif seen[b] then
    return true  -- already being compared: equal unless something else differs
  end
  seen[b] = true
  for k, x in pairs(a) do
    if not same_value(x, b[k], pairs_seen) then return false end
  end
  for k in pairs(b) do
    if a[k] == nil then return false end
  end
  return true
end

function composable.on_change(spec)
  if type(spec.of) ~= "function" then error("on_change: of must be a function", 2) end
  if type(spec.run) ~= "function" then error("on_change: run must be a function", 2) end
  local reduce = reducer_of(spec.reducer, "on_change")
  return function(state, action, env)
    -- By value, as TCA compares with ==: a table changed in place is a change, and `old` is
    -- what it held before (a plain copy), not the same table seen after the change.
    local old = snapshot(spec.of(state))
    local e = reduce(state, action, env)
    local new = spec.of(state)
    if same_value(old, new) then return e end
    local changed = spec.run(old, new, state, env)
    if not acts(e) then return changed end
    if not acts(changed) then return e end
    return effect.merge(e, changed)
  end
end

return composable
