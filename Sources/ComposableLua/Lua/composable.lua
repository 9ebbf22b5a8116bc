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
-- - `stack{ state = "path", action = "path", screens = { detail = Detail } }`: a navigation stack
--   (`stack_state`, `push`, `pop`, `pop_to`, `pop_from`, `top`); `presents{ state =
--   "destination", action = "destination", destinations = { edit = Edit } }`: a presented
--   destination (`present`, `alert`, `confirmation_dialog`); `dismiss`, the effect a child
--   returns to go; `bindings{ action = "set", fields = { title = "string" } }`: form fields.
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

-- `level`: of the line the error names, 3 (the caller's caller) by default.
local function reducer_of(reducer, where, level)
  if type(reducer) == "function" then return reducer end
  if type(reducer) == "table" and type(reducer.reduce) == "function" then return reducer.reduce end
  error(where .. ": reducer must be a function or a table with a reduce function, got "
    .. type(reducer), level or 3)
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

-- Whether `action` (a child's, as it arrives) is a dismiss, or carries one at its heart (`{ type
-- = "destination", action = "dismiss" }`): what a child asked for in the action that removed
-- its container, arriving once it is gone; what it asks is so already.
local function carries_dismiss(action)
  for _ = 1, 200 do
    if action == "dismiss" then return true end
    if type(action) ~= "table" then return false end
    if action.type == "dismiss" then return true end
    action = action.action
  end
  return false
end

-- Where the feature's code called the composition being made (`todos.lua:12: `), or "" when
-- no Lua code did: said before the errors it raises as actions arrive, which Lua would place
-- in the library (there is no line of the feature's own to give them otherwise).
local function declared_at()
  -- The first frame out of this library (its chunk is "composable"), a few levels up.
  for level = 3, 8 do
    local _, position = pcall(error, "", level)
    if type(position) == "string" and position ~= "" and position:sub(1, 11) ~= "composable:" then
      return position
    end
  end
  return ""
end

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

-- A string no other value's gives, and which is the start of no other's: an element's id
-- in the composition's bookkeeping keys. (`tostring` gives "0.3" for 0.1 + 0.2 as for 0.3, and
-- a string holding "\0" could make one place's key the start of another's.) Numbers as Lua's
-- keys take them: 1 and 1.0, 0 and -0.0, are one element.
local function exact(value)
  local kind = type(value)
  if kind == "number" then
    local integer = math.tointeger(value)
    if integer ~= nil then return "i" .. integer .. ";" end
    return "f" .. string.format("%a", value) .. ";"
  elseif kind == "string" then
    return "s" .. #value .. ":" .. value
  end
  return kind .. ":" .. tostring(value) .. ";"  -- a boolean; a table by its address
end

-- A level's key, made when a composition inside it first asks (most levels have none inside).
local function key_of(level)
  local key = level.key
  if key == nil then
    key = level.kind .. "\0" .. exact(level.field) .. exact(level.id)
    level.key = key
  end
  return key
end

-- The bookkeeping table of the composition named `name`: one for the VM's life (journal.kept,
-- which every sandbox of a hot reload shares), so that the new code's composition knows which
-- children the old code's started effects for, and cancels them when they go. (A table of
-- its own was the composition's: after a reload, a removed element's timer ran on.)
local kept = journal.kept or {}
local function kept_table(name)
  local t = kept[name]
  if t == nil then
    t = journal.table()
    kept[name] = t
  end
  return t
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
    scope = { [level.kind] = level.field, element = level.id }
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

-- For a child whose effects run (`running[place]` set, in a journaled table): once the action
-- is done, cancels them (cancel id `id`) when `gone()` says the child left; at once where no
-- host runs the action. With no effects running there is nothing to end: no check is made.
local function cancel_when_gone(running, place, id, effects, gone)
  if not running[place] then return end
  local function check()
    if running[place] and gone() then
      running[place] = nil
      return effect.cancel(id)
    end
  end
  if not after_action(check) then effects[#effects + 1] = check() end
end

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
  local at = declared_at()
  local field, name, reduce, wrap = child_of(spec, "scope")
  return function(state, action, env)
    if action.type ~= name then return nil end
    local child = state[field]
    if child == nil then error(at .. "scope: state." .. field .. " is nil", 0) end
    return map_effect(reduce(child, as_action(action.action), env), wrap)
  end
end

function composable.if_let(spec)
  local at = declared_at()
  local field, name, reduce, wrap = child_of(spec, "if_let")
  local scope = { if_let = field }
  local id = { scope = scope }  -- all the child's effects: no name a reducer gives can be it
  local level = { key = "if_let\0" .. exact(field), scope = scope }
  local running = kept_table(level.key)  -- running[place]: the child there started effects
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
      elseif not was_set(state, field) and not carries_dismiss(action.action) then
        error(at .. "if_let: a child action arrived while state." .. field .. " is nil", 0)
      end
      -- (Dismissed earlier in this action, by the parent: nothing to run, its effects end.)
    end
    cancel_when_gone(running, place, id, effects, function() return state[field] == nil end)
    return merged(effects)
  end
end

-- The reducer of a list of children found by id: for_each's elements, a stack's screens.
-- `list` says where and how: `where` (for messages), `name` (the action type), `field`,
-- `elements(state, at_end)` (the array; nil only at the end of an action), `missing(state, id)`
-- (whether no element with that id was there when the action began either: the action is then
-- an error), `run(element, action, env)` (the element's reducer), `absent(id)` (the error's
-- words for an id that is not there), `at` (where the feature made it, said before that error)
-- and, optionally, `handle(state, action)`, which takes the actions of the list itself (a
-- stack's push and pop), returning true for those it took.
local function elements_reducer(list)
  local where, name, field = list.where, list.name, list.field
  -- The array -> { id -> position }: a cache, checked on every use, so a rolled-back action
  -- cannot make it lie.
  local indexes = setmetatable({}, { __mode = "k" })
  -- place .. "\0" .. the id's type and text -> the id, for each element whose effects may
  -- be running, in each place this list runs (inside another composition's elements).
  local active = kept_table(where .. "\0" .. exact(field) .. exact(name))
  local function active_key(place, id) return place .. "\0" .. exact(id) end
  -- The id every effect of the element `id` runs under: the scope of its own ids, with no id of
  -- its own, so that no name a reducer gives (and no other element's id) can be it.
  local function elements_id(id) return { scope = { [where] = field, element = id } } end
  needs_finishing()

  local function find(elements, id)
    local index = indexes[elements]
    local position = index and index[id]
    if position ~= nil then
      local element = elements[position]
      if element ~= nil and element.id == id then return element end
    end
    index = {}
    for i, element in ipairs(elements) do
      local key = element.id
      -- An id no table can be keyed by (nil, NaN: written by hand) is never found.
      if key ~= nil and key == key then index[key] = i end
    end
    indexes[elements] = index
    position = index[id]
    return position and elements[position]
  end


  return function(state, action, env)
    local elements = list.elements(state)
    local effects = {}
    local place = place_key()
    if action.type == name and not (list.handle and list.handle(state, action)) then
      local id = action.id
      local element = find(elements, id)
      if element ~= nil then
        -- One form of the element's id from here: the action's may name it otherwise, and the
        -- state may come to (1.0 for 1, -0.0 for 0: one key to Lua), where its effects' ids are
        -- compared as they are, and must be the same each time.
        id = element.id
        if type(id) == "number" then id = math.tointeger(id) or id end
        -- (Its key and scope are made when asked for: key_of, scope_of.)
        local level = { kind = where, field = field, id = id }
        local child_action = as_action(action.action)
        local e = run_inside(level, list.run, element, child_action, env)
        if acts(e) then
          active[active_key(place, id)] = id
          local function wrap(child) return { type = name, id = id, action = as_action(child) } end
          local scoped = scope_ids(map_effect(e, wrap), scope_of(level))
          effects[#effects + 1] = effect.cancellable(scoped, elements_id(id))
        end
      elseif list.missing(state, id) and not carries_dismiss(action.action) then
        error(list.at .. list.absent(id, elements), 0)
      end
      -- (Removed earlier in this action, by the parent: nothing to run, its effects end.)
    end
    -- (With no element's effects running anywhere there is nothing to end: no check.)
    local step, over, start = pairs(active)
    if step(over, start) == nil then return merged(effects) end
    local function removed()
      local now = list.elements(state, true)
      local cancels = {}
      local prefix = place .. "\0"
      for key, id in pairs(active) do
        if key:sub(1, #prefix) == prefix and (now == nil or find(now, id) == nil) then
          active[key] = nil
          cancels[#cancels + 1] = effect.cancel(elements_id(id))
        end
      end
      return merged(cancels)
    end
    if not after_action(removed) then effects[#effects + 1] = removed() end
    return merged(effects)
  end
end

function composable.for_each(spec)
  local at = declared_at()
  local field = field_of(spec, "state", "for_each")
  local name = field_of(spec, "action", "for_each")
  local reduce = reducer_of(spec.reducer, "for_each")
  return elements_reducer{
    where = "for_each", name = name, field = field, at = at,
    elements = function(state, at_end)
      local elements = state[field]
      if elements == nil and not at_end then
        error(at .. "for_each: state." .. field .. " is nil", 0)
      end
      return elements
    end,
    missing = function(state, id) return not had_element(state, field, "id", id) end,
    run = reduce,
    absent = function(id)
      return "for_each: an action arrived for " .. field .. " element " .. tostring(id)
        .. ", which is not there"
    end,
  }
end

-- MARK: - Navigation: a stack of screens, a presented destination, dismissal

-- What a child returns to dismiss itself (as TCA's `dismiss`): the action `dismiss`, which the
-- stack or the presentation holding it takes (a stack pops the screen and those above it, a
-- presentation closes). A child's own action of that name never reaches it.
composable.dismiss = effect.send("dismiss")

-- The stacks and presentations this feature declared, by action name and state field, with
-- the kinds of screen they run (`{ name = "path", field = "path", kinds = { detail = true } }`;
-- declarations of one name and field, at several levels, share an entry and their kinds), for
-- the tools that show where a session is and address a screen (`composable.navigation`).
local declared = { stacks = {}, presents = {} }

local function declare(kind, name, field, kinds)
  local key = name .. "\0" .. field
  local entry = declared[kind][key] or { name = name, field = field, kinds = {} }
  for screen in pairs(kinds) do entry.kinds[screen] = true end
  declared[kind][key] = entry
end

local function is_dismiss(action)
  return action == "dismiss" or (type(action) == "table" and action.type == "dismiss")
end

-- The reducers of a stack's screens (`what`: "screen") or a presentation's destinations by
-- kind, each checked, and the kinds sorted (for messages). Errors name the line that called
-- stack{} or presents{} (`where`).
local function reducers_by_kind(list, where, what)
  local reducers, kinds = {}, {}
  for kind, reducer in pairs(list) do
    if type(kind) ~= "string" then error(where .. ": a " .. what .. " kind must be a string", 3) end
    reducers[kind] = reducer_of(reducer, where .. ": " .. what .. " " .. kind, 4)
    kinds[#kinds + 1] = kind
  end
  table.sort(kinds)
  return reducers, kinds
end

-- A navigation stack's state: `{ screens = { { id = 1, screen = "detail", state = {...} },
-- ... }, next_id = 2 }`, the bottom first. Ids are never used twice in one stack, so an action
-- for a screen that was popped cannot reach one pushed since.
function composable.stack_state()
  return { screens = {}, next_id = 1 }
end

local function check_stack(stack, where)
  if type(stack) ~= "table" or type(stack.screens) ~= "table"
    or math.type(stack.next_id) ~= "integer" then
    error(where .. ": expected a stack (composable.stack_state()), got " .. type(stack), 3)
  end
end

-- The position of the screen `id` in the stack, or nil.
local function position_of(stack, id)
  for i, screen in ipairs(stack.screens) do
    if screen.id == id then return i end
  end
  return nil
end

local function pop_above(stack, keep)
  for i = #stack.screens, keep + 1, -1 do stack.screens[i] = nil end
end

-- A screen's (or a destination's, `what`) kind and state, checked for `where`: the state, {}
-- by default. Errors name the caller's caller's line.
local function screen_state(where, what, screen, state)
  if type(screen) ~= "string" then
    error(where .. ": screen must be a string, got " .. type(screen), 3)
  end
  if state ~= nil and type(state) ~= "table" then
    error(where .. ": the " .. what .. "'s state must be a table, got " .. type(state), 3)
  end
  return state or {}
end

-- Pushes a screen of kind `screen` with `state` (a table; {} by default); returns its id.
function composable.push(stack, screen, state)
  check_stack(stack, "push")
  state = screen_state("push", "screen", screen, state)
  local id = stack.next_id
  stack.next_id = id + 1
  stack.screens[#stack.screens + 1] = { id = id, screen = screen, state = state }
  return id
end

-- Pops the top screen; returns it (nil when the stack is empty).
function composable.pop(stack)
  check_stack(stack, "pop")
  local n = #stack.screens
  if n == 0 then return nil end
  local top = stack.screens[n]
  stack.screens[n] = nil
  return top
end

-- A short form of a value for messages: `{ id = "a", type = "delete" }`, keys sorted.
local function describe(v, depth)
  if type(v) == "string" then return string.format("%q", v) end
  if type(v) ~= "table" then return tostring(v) end
  if (depth or 0) > 3 then return "{...}" end
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  local parts = {}
  for i, k in ipairs(keys) do
    if i > 8 then parts[#parts + 1] = "..." break end
    parts[#parts + 1] = tostring(k) .. " = " .. describe(v[k], (depth or 0) + 1)
  end
  return "{ " .. table.concat(parts, ", ") .. " }"
end

-- "1, 2" (the ids on the stack, the bottom first), or "none".
local function ids_of(stack)
  local ids = {}
  for k, screen in ipairs(stack.screens) do ids[k] = tostring(screen.id) end
  return #ids == 0 and "none" or table.concat(ids, ", ")
end

local function must_find(stack, id, where)
  local i = position_of(stack, id)
  if i == nil then
    error(where .. ": no screen " .. describe(id) .. " on the stack (its screens: "
      .. ids_of(stack) .. ")", 3)
  end
  return i
end

-- Pops every screen above the screen `id` (which stays on top).
function composable.pop_to(stack, id)
  check_stack(stack, "pop_to")
  pop_above(stack, must_find(stack, id, "pop_to"))
end

-- Pops the screen `id` and every screen above it.
function composable.pop_from(stack, id)
  check_stack(stack, "pop_from")
  pop_above(stack, must_find(stack, id, "pop_from") - 1)
end

-- Pops every screen (the stack's ids go on: a new screen never takes a popped one's id, as it
-- would in a new stack_state()).
function composable.pop_to_root(stack)
  check_stack(stack, "pop_to_root")
  pop_above(stack, 0)
end

-- The screen `id` (`{ id, screen, state }`), or nil when it is not on the stack: how a parent
-- reads the state of the screen an action came from.
function composable.screen(stack, id)
  check_stack(stack, "screen")
  local i = position_of(stack, id)
  return i and stack.screens[i]
end

-- The top screen (`{ id, screen, state }`), or nil for an empty stack.
function composable.top(stack)
  check_stack(stack, "top")
  return stack.screens[#stack.screens]
end

-- stack{ state = "path", action = "path", screens = { detail = Detail, ... } }: the stack in
-- `state.path` (composable.stack_state()). Each screen runs the reducer of its kind on its own
-- state for actions `{ type = "path", id = <its id>, action = ... }`; its effects come back so
-- wrapped, and are cancelled when it leaves the stack. The stack takes `{ type = "path",
-- pop_from = id }` (a back button), `{ type = "path", push = { screen = ..., state = ... } }`
-- (a link), and a screen's `dismiss` (it pops that screen).
function composable.stack(spec)
  local at = declared_at()
  local field = field_of(spec, "state", "stack")
  local name = field_of(spec, "action", "stack")
  if type(spec.screens) ~= "table" then
    error("stack: screens must be a table of reducers by screen kind, got "
      .. type(spec.screens), 2)
  end
  local reducers, kinds = reducers_by_kind(spec.screens, "stack", "screen")
  declare("stacks", name, field, reducers)
  local function stack_of(state, at_end)
    local stack = state[field]
    if stack == nil and at_end then return nil end
    if type(stack) ~= "table" or type(stack.screens) ~= "table" then
      error(at .. "stack: state." .. field .. " is not a stack (composable.stack_state()), got "
        .. type(stack), 0)
    end
    return stack
  end
  return elements_reducer{
    where = "stack", name = name, field = field, at = at,
    elements = function(state, at_end)
      local stack = stack_of(state, at_end)
      return stack and stack.screens
    end,
    missing = function(state, id)
      return not had_element(state[field], "screens", "id", id)
    end,
    handle = function(state, action)
      if action.pop_from ~= nil then
        local stack = stack_of(state)
        local i = position_of(stack, action.pop_from)
        -- A back button for a screen already gone (popped by this very action) does nothing.
        if i == nil and not had_element(stack, "screens", "id", action.pop_from) then
          error(at .. "stack: pop_from = " .. describe(action.pop_from) .. ": no screen "
            .. describe(action.pop_from) .. " on " .. field .. " (its screens: " .. ids_of(stack)
            .. ")", 0)
        end
        if i ~= nil then pop_above(stack, i - 1) end
        return true
      elseif action.push ~= nil then
        local push = action.push
        if type(push) ~= "table" or reducers[push.screen] == nil then
          local given = type(push) == "table" and ("a screen of kind " .. tostring(push.screen))
            or type(push)
          error(at .. "stack: push = { screen = <kind>, state = {...} (optional) }: got " .. given
            .. ", and the kinds are " .. table.concat(kinds, ", "), 0)
        end
        composable.push(stack_of(state), push.screen, push.state)
        return true
      elseif action.id ~= nil and is_dismiss(action.action) then
        -- A screen already gone (the parent popped it in the action that asked for this
        -- dismiss) is dismissed: nothing to do. Ids are never used twice, so no other screen
        -- can take it for its own.
        local stack = stack_of(state)
        local i = position_of(stack, action.id)
        if i ~= nil then pop_above(stack, i - 1) end
        return true
      elseif action.id == nil then
        error(at .. "stack: " .. describe(action)
          .. " is no stack action: the stack takes { type = " .. string.format("%q", name)
          .. ", id = <a screen's id>, action = ... }, pop_from = "
          .. "<id> (a back button), or push = { screen = <kind>, state = {...} }", 0)
      end
      return false
    end,
    run = function(element, action, env)
      local reduce = reducers[element.screen]
      if reduce == nil then
        error(at .. "stack: screen " .. tostring(element.id) .. " is of kind "
          .. tostring(element.screen) .. ", which has no reducer (the kinds: "
          .. table.concat(kinds, ", ") .. ")", 0)
      end
      return reduce(element.state, action, env)
    end,
    absent = function(id, screens)
      local ids = {}
      for k, screen in ipairs(screens or {}) do ids[k] = tostring(screen.id) end
      return "stack: an action arrived for " .. field .. " screen " .. describe(id)
        .. ", which is not on the stack (its screens: "
        .. (#ids == 0 and "none" or table.concat(ids, ", ")) .. ")"
    end,
  }
end

-- How many dismisses `e` sends at once (a `send` of `dismiss`, in a merge or a cancellable):
-- those are queued when the action ends, whatever it did meanwhile. One sent later (in a
-- concat, after a delay) is cancelled with the child's other effects.
local function dismisses_in(e)
  if type(e) ~= "table" then return 0 end
  if e.kind == "send" then return is_dismiss(as_action(e.action)) and 1 or 0 end
  if e.kind == "cancellable" then return dismisses_in(e.effect) end
  if e.kind ~= "merge" then return 0 end
  local n = 0
  for _, inner in ipairs(e.effects) do n = n + dismisses_in(inner) end
  return n
end

-- Alerts and confirmation dialogs are plain state: a destination `{ screen = "alert", state =
-- { title, message, buttons } }`, each button `{ label = ..., action = ..., role = "cancel" or
-- "destructive" }`. Tapping a button sends its action to the presentation (`{ type =
-- "destination", action = <the button's action> }`), for the parent to handle; the alert is
-- then dismissed.
local button_roles = { cancel = true, destructive = true }

local function dialog(screen, spec)
  if type(spec) ~= "table" then error(screen .. ": expected a table, got " .. type(spec), 3) end
  if type(spec.title) ~= "string" then
    error(screen .. ": title must be a string, got " .. type(spec.title), 3)
  end
  if spec.message ~= nil and type(spec.message) ~= "string" then
    error(screen .. ": message must be a string, got " .. type(spec.message), 3)
  end
  local buttons = {}
  for i, button in ipairs(spec.buttons or { { label = "OK", role = "cancel" } }) do
    if type(button) ~= "table" or type(button.label) ~= "string" then
      error(screen .. ": button " .. i .. " needs a label string", 3)
    end
    if button.action ~= nil and type(button.action) ~= "string" and type(button.action) ~= "table"
    then
      error(screen .. ": button " .. i .. ": action must be an action (a table or a string), got "
        .. type(button.action), 3)
    end
    if button.role ~= nil and not button_roles[button.role] then
      error(screen .. ": button " .. i .. ": role must be \"cancel\" or \"destructive\", got "
        .. tostring(button.role), 3)
    end
    buttons[i] = { label = button.label, action = button.action, role = button.role }
  end
  return {
    screen = screen, state = { title = spec.title, message = spec.message, buttons = buttons },
  }
end

function composable.alert(spec) return dialog("alert", spec) end
function composable.confirmation_dialog(spec) return dialog("confirmation_dialog", spec) end

local dialogs = { alert = true, confirmation_dialog = true }

-- Whether two actions are equal as data.
local function same_action(a, b)
  if type(a) ~= "table" or type(b) ~= "table" then
    return a == b and math.type(a) == math.type(b)
  end
  for k, v in pairs(a) do
    if not same_action(v, b[k]) then return false end
  end
  for k in pairs(b) do
    if a[k] == nil then return false end
  end
  return true
end

-- Whether the action (a table) is what one of the dialog's buttons sends (a button with no
-- action sends `dismiss`, taken before this).
-- A dialog's buttons, or none for one whose state is not a table (written by hand).
local function buttons_of(presented)
  local state = presented.state
  return type(state) == "table" and type(state.buttons) == "table" and state.buttons or {}
end

local function dialog_sends(presented, action)
  for _, button in ipairs(buttons_of(presented)) do
    if button.action ~= nil and same_action(as_action(button.action), action) then return true end
  end
  return false
end

local function dialog_actions(presented)
  local sent = {}
  for _, button in ipairs(buttons_of(presented)) do
    if button.action ~= nil then sent[#sent + 1] = describe(as_action(button.action)) end
  end
  return #sent == 0 and "nothing" or table.concat(sent, ", ")
end

-- presents{ state = "destination", action = "destination", destinations = { edit = Edit, ... } }:
-- an optional child in `state.destination`, `{ screen = <kind>, state = {...} }` (nil when
-- nothing is presented), of one of several kinds: a sheet or a screen whose reducer
-- `destinations` names, an alert or a confirmation dialog (composable.alert,
-- composable.confirmation_dialog). Actions `{ type = "destination", action = ... }` run the
-- child's reducer; `dismiss` (the child's composable.dismiss, or a sheet swiped away) closes
-- it; a dialog closes after its button's action. A child's effects end when it is closed or
-- replaced by a destination of another kind.
function composable.presents(spec)
  local at = declared_at()
  local field = field_of(spec, "state", "presents")
  local name = field_of(spec, "action", "presents")
  local destinations = spec.destinations or {}
  if type(destinations) ~= "table" then
    error("presents: destinations must be a table of reducers by kind, got "
      .. type(destinations), 2)
  end
  for kind in pairs(destinations) do
    if dialogs[kind] then error("presents: " .. kind .. " is built in; it takes no reducer", 2) end
  end
  local reducers, kinds = reducers_by_kind(destinations, "presents", "destination")
  local presentable = { alert = true, confirmation_dialog = true }
  for kind in pairs(reducers) do presentable[kind] = true end
  declare("presents", name, field, presentable)
  local function wrap(child) return { type = name, action = as_action(child) } end
  local scope = { presents = field }
  local id = { scope = scope }
  local level = { key = "presents\0" .. exact(field), scope = scope }
  local running = kept_table(level.key)  -- running[place]: the kind of child that started effects
  -- stale[place]: dismisses on their way from a child that was closed or replaced in the action
  -- that asked for them; each is for that child, not for what is presented when it arrives.
  local stale = kept_table(level.key .. "\0stale")
  needs_finishing()
  return function(state, action, env)
    local effects = {}
    local place = place_key()
    if action.type == name then
      local presented = state[field]
      local child_action = as_action(action.action)
      if is_dismiss(child_action) and (stale[place] or 0) > 0 then
        stale[place] = stale[place] > 1 and stale[place] - 1 or nil
      elseif presented == nil then
        -- A dismiss of what is gone already does nothing; any other action is an error.
        if not is_dismiss(child_action) and not was_set(state, field) then
          error(at .. "presents: an action arrived for state." .. field
            .. ", which presents nothing", 0)
        end
        -- (Closed earlier in this action: nothing to run.)
      elseif type(presented) ~= "table" or type(presented.screen) ~= "string" then
        error(at .. "presents: state." .. field
          .. " must be { screen = <kind>, state = {...} }, got " .. type(presented), 0)
      elseif is_dismiss(child_action) then
        state[field] = nil
      elseif dialogs[presented.screen] then
        -- The parent handles the button's action; the dialog closes once the action is done,
        -- unless the parent presented something else meanwhile. An action none of its buttons
        -- sends is a mistake in the caller (a typo): an error naming what the buttons send.
        if not dialog_sends(presented, child_action) then
          error(at .. "presents: the " .. presented.screen .. " in state." .. field
            .. " has no button that sends " .. describe(child_action) .. "; its buttons send "
            .. dialog_actions(presented) .. " (a button with no action sends dismiss)", 0)
        end
        local function close()
          if rawequal(state[field], presented) then state[field] = nil end
        end
        if not after_action(close) then close() end
      else
        local reduce = reducers[presented.screen]
        if reduce == nil then
          error(at .. "presents: state." .. field .. " is a " .. presented.screen
            .. ", which has no reducer (" .. (#kinds == 0 and "destinations names none"
              or "the kinds: " .. table.concat(kinds, ", ")) .. ")", 0)
        end
        local e = run_inside(level, reduce, presented.state, child_action, env)
        if acts(e) then
          running[place] = presented.screen
          effects[1] = effect.cancellable(scope_ids(map_effect(e, wrap), scope), id)
          local asks = dismisses_in(e)
          if asks > 0 then
            local function replaced()
              if not rawequal(state[field], presented) then
                stale[place] = (stale[place] or 0) + asks
              end
            end
            if not after_action(replaced) then replaced() end
          end
        end
      end
    end
    cancel_when_gone(running, place, id, effects, function()
      local now = state[field]
      return now == nil or now.screen ~= running[place]
    end)
    return merged(effects)
  end
end

-- Presents the destination `screen` with `state` in `state[field]`: `{ screen, state }`.
function composable.present(screen, state)
  return { screen = screen, state = screen_state("present", "destination", screen, state) }
end

-- The action names of the stacks and presentations this feature declared, sorted: `{ stacks =
-- { "path" }, presents = { "destination" } }`, for tools that address them.
function composable.declared_navigation()
  local names = { stacks = {}, presents = {} }
  for kind, specs in pairs(declared) do
    local seen = {}
    for _, spec in pairs(specs) do
      if not seen[spec.name] then
        seen[spec.name] = true
        names[kind][#names[kind] + 1] = spec.name
      end
    end
    table.sort(names[kind])
  end
  return names
end

-- Where a session is, for tools (the REPL's `:screens`): the stacks and presented destinations
-- in `state` that this feature's stack{} and presents{} declared, outermost first, each
-- `{ address = "path#2 destination", stack = { { id = 1, screen = "detail" }, ... } }` or
-- `{ address = ..., screen = "alert", title = "Delete?" }`. An address is how the REPL sends
-- to it: the action names, a screen's id after `#`. At most `limit` entries (50); a stack of
-- more than 12 screens lists its bottom two and top ten, `hidden` saying how many are between
-- (after the first `hidden_after`), and what they present is not walked.
function composable.navigation(state, limit)
  limit = limit or 50
  local found = {}
  -- By field: the declarations that keep one there, the one named as its field first (two
  -- may share a field at different levels: told apart by the kinds they run).
  local function by_field(kind)
    local fields = {}
    for _, spec in pairs(declared[kind]) do
      fields[spec.field] = fields[spec.field] or {}
      table.insert(fields[spec.field], { spec.name, spec.kinds })
    end
    for field, list in pairs(fields) do
      table.sort(list, function(a, b)
        if (a[1] == field) ~= (b[1] == field) then return a[1] == field end
        return a[1] < b[1]
      end)
    end
    local sorted = {}
    for field, list in pairs(fields) do sorted[#sorted + 1] = { field, list } end
    table.sort(sorted, function(a, b) return a[1] < b[1] end)
    return sorted
  end
  -- The name of the declaration at `field` that runs every kind in `kinds`, or nil; inside a
  -- screen, one other than the screen's own stack first (an empty stack fits any).
  local function owner(list, kinds, outer)
    local fallback
    for _, candidate in ipairs(list) do
      local fits = true
      for _, kind in ipairs(kinds) do
        if not candidate[2][kind] then fits = false break end
      end
      if fits and candidate[1] ~= outer then return candidate[1] end
      if fits then fallback = fallback or candidate[1] end
    end
    return fallback
  end
  local stacks, presents = by_field("stacks"), by_field("presents")
  local function walk(t, prefix, depth, outer)
    if type(t) ~= "table" or depth > 8 or #found >= limit then return end
    for _, pair in ipairs(stacks) do
      local stack = rawget(t, pair[1])
      local name
      if type(stack) == "table" and type(rawget(stack, "screens")) == "table" then
        local kinds = {}
        for i, screen in ipairs(stack.screens) do
          if i > 50 then break end
          kinds[i] = screen.screen
        end
        name = owner(pair[2], kinds, outer)
      end
      if name then
        -- A long stack is shown by its bottom two and its top ten screens (`hidden` between).
        local n, listed = #stack.screens, {}
        for i = 1, n do
          if i <= 2 or i > n - 10 then listed[#listed + 1] = stack.screens[i] end
        end
        local screens = {}
        for i, screen in ipairs(listed) do
          screens[i] = { id = screen.id, screen = screen.screen }
        end
        found[#found + 1] = {
          address = prefix .. name, stack = screens, hidden = n - #listed, hidden_after = 2,
        }
        for _, screen in ipairs(listed) do
          walk(screen.state, prefix .. name .. "#" .. tostring(screen.id) .. " ", depth + 1,
            name)
        end
      end
    end
    for _, pair in ipairs(presents) do
      local presented = rawget(t, pair[1])
      local name
      if type(presented) == "table" and type(rawget(presented, "screen")) == "string" then
        name = owner(pair[2], { presented.screen }, outer)
      end
      if name then
        local inner = presented.state
        local entry = { address = prefix .. name, screen = presented.screen }
        if dialogs[presented.screen] and type(inner) == "table" then
          entry.title = type(inner.title) == "string" and inner.title or nil
          entry.buttons = {}
          for i, button in ipairs(type(inner.buttons) == "table" and inner.buttons or {}) do
            if type(button) == "table" then
              entry.buttons[i] = { label = tostring(button.label), action = button.action }
            end
          end
        end
        found[#found + 1] = entry
        walk(inner, prefix .. name .. " ", depth + 1)
      end
    end
  end
  walk(state, "", 0)
  return found
end

-- MARK: - Form bindings

local binding_types = {
  string = true, number = true, integer = true, boolean = true, table = true,
}

local function type_of(value)
  if math.type(value) == "integer" then return "integer" end
  return type(value)
end

-- bindings{ action = "set", fields = { title = "string", minutes = "integer", ... },
-- state = "form" }: `{ type = "set", field = "title", value = ... }` writes the value into
-- `state.form.title` (the state itself without `state`) after checking that the field is
-- declared and the value has its type ("string", "number", "integer", "boolean", "table"; with
-- a trailing "?" nil is allowed too). Anything else is an error naming the field.
function composable.bindings(spec)
  local name = field_of(spec, "action", "bindings")
  local target = spec.state
  if target ~= nil and type(target) ~= "string" then
    error("bindings: state must be the name of a state field, got " .. type(target), 2)
  end
  if type(spec.fields) ~= "table" then
    error("bindings: fields must be a table of field names and types, got "
      .. type(spec.fields), 2)
  end
  local fields, names = {}, {}
  for field, kind in pairs(spec.fields) do
    local base, optional = tostring(kind):match("^(%a+)(%??)$")
    if type(field) ~= "string" or type(kind) ~= "string" or not binding_types[base] then
      error("bindings: field " .. tostring(field) .. " has the type " .. tostring(kind)
        .. "; the types are string, number, integer, boolean, table (with ? for optional)", 2)
    end
    fields[field] = { type = base, optional = optional == "?" }
    names[#names + 1] = field
  end
  table.sort(names)
  local where = target and ("state." .. target .. ".") or "state."
  return function(state, action)
    if action.type ~= name then return nil end
    local field = action.field
    local field_type = fields[field]
    if field_type == nil then
      error("bindings: " .. name .. " of an unknown field " .. tostring(field)
        .. "; the fields are " .. table.concat(names, ", "), 0)
    end
    local value = action.value
    local given = type_of(value)
    local fits = given == field_type.type or (field_type.type == "number" and given == "integer")
      or (given == "nil" and field_type.optional)
    if not fits then
      local article = field_type.type == "integer" and "an " or "a "
      error("bindings: " .. where .. field .. " takes " .. article .. field_type.type
        .. (field_type.optional and " or nil" or "") .. ", got " .. given, 0)
    end
    local into = state
    if target ~= nil then
      into = state[target]
      if type(into) ~= "table" then error("bindings: state." .. target .. " is not a table", 0) end
    end
    into[field] = value
    return nil
  end
end

-- Feature.persist = composable.persist{ path = "todos.saved.lua", select = "todos", debounce = 1 }:
-- the host saves the state (or its `select` field) to `path`, `debounce` seconds after the first
-- change not yet saved (0: after every action that changed it), and restores it at start. With
-- `is_duplicate = function(old, new) ... end`, a save whose value it calls a duplicate of the
-- last one saved (or restored; nil before any) is skipped.
local persist_fields = { path = true, select = true, debounce = true, is_duplicate = true }

function composable.persist(spec)
  if type(spec) ~= "table" then error("persist: expected a table, got " .. type(spec), 2) end
  -- A misspelt field (`debouce`) is named, not ignored for the default it leaves.
  for key in pairs(spec) do
    if not persist_fields[key] then
      local name = type(key) == "string" and string.format("%q", key:sub(1, 60))
        or "a " .. type(key) .. " key"
      error("persist: " .. name .. ": persist takes no such field; its fields are "
        .. "path, select, debounce, is_duplicate", 2)
    end
  end
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
