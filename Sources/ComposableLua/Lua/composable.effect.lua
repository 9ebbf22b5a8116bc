-- `composable.effect`: effects as plain descriptions that the host turns into `Effect`s.
--
-- Each constructor returns a table with a `kind`; the Swift side checks every field and names
-- the one that is wrong, so a typo in a reducer reads as `effect.seconds: expected number, got
-- string`, not as a crash.

local effect = {}

local yield = coroutine.yield

-- The options table of a constructor, nil or holding only the options `known` names, each a
-- boolean: a misspelt one (`cancel_inflight`) or a wrong value (`"yes"`) is an error at the
-- reducer's line, not a setting that silently does nothing.
local function options_of(name, options, known)
  if options == nil then return {} end
  if type(options) ~= "table" then
    error(name .. ": expected an options table, got " .. type(options), 3)
  end
  for key, value in next, options do
    local listed = false
    for _, option in ipairs(known) do listed = listed or option == key end
    if not listed then
      local shown = type(key) == "string" and string.format("%q", key) or tostring(key)
      error(string.format("%s: no option %s; its options are %s", name, shown,
        table.concat(known, ", ")), 3)
    end
    if type(value) ~= "boolean" then
      error(string.format("%s: option %s: expected a boolean, got %s", name, key, type(value)), 3)
    end
  end
  return options
end

-- The constructors, one kind of effect after another in the order of LuaEffectKinds.all, each
-- copied from the kind's file in Sources/ComposableLua/Effects by scripts/generate-effect-kinds:
-- edit them there.
-- BEGIN GENERATED: effect kinds

-- Shared by every feature that returns it: a field added to it would break each of them, so it
-- takes none (and its metatable cannot be changed).
effect.none = setmetatable({ kind = "none" }, {
  __newindex = function(_, key)
    error(string.format("effect.none is shared and takes no field (%s); make an effect of your own",
      tostring(key)), 2)
  end,
  __metatable = false,
})

function effect.send(action) return { kind = "send", action = action } end

function effect.merge(...) return { kind = "merge", effects = { ... } } end

function effect.concat(...) return { kind = "concat", effects = { ... } } end

function effect.after(seconds, action)
  return { kind = "after", seconds = seconds, action = action }
end

function effect.every(seconds, action)
  return { kind = "every", seconds = seconds, action = action }
end

function effect.cancellable(inner, id, options)
  options = options_of("effect.cancellable", options, { "cancel_in_flight" })
  return {
    kind = "cancellable", effect = inner, id = id,
    cancel_in_flight = options.cancel_in_flight == true,
  }
end

function effect.cancel(id) return { kind = "cancel", id = id } end

function effect.debounce(inner, id, seconds)
  return { kind = "debounce", effect = inner, id = id, seconds = seconds }
end

function effect.throttle(inner, id, seconds, options)
  options = options_of("effect.throttle", options, { "latest" })
  return {
    kind = "throttle", effect = inner, id = id, seconds = seconds,
    latest = options.latest ~= false,
  }
end

-- effect.run(function(send) ... end): async work in a coroutine. Inside it, send(action)
-- feeds an action back, sleep(seconds) waits on the store's clock, and http.get(url) or
-- http.request{...} returns the response; each of them yields to the host.
local function send(action) yield({ op = "send", action = action }) end

function effect.run(work)
  if type(work) ~= "function" then
    error("effect.run: expected a function, got " .. type(work), 2)
  end
  return { kind = "run", fn = function() return work(send) end }
end

function effect.sleep(seconds) yield({ op = "sleep", seconds = seconds }) end

-- effect.http{ url = ..., method = "GET", headers = {}, body = "...", response = "type" }: the
-- response arrives as { type = response, ok = true, status, headers, body, json } or
-- { type = response, ok = false, error = "..." }.
function effect.http(request)
  if type(request) ~= "table" then
    error("effect.http: expected a request table, got " .. type(request), 2)
  end
  return { kind = "http", request = request }
end

-- http.get(url) and http.request{...} inside effect.run: each returns the response table.
effect.http_client = {
  request = function(request) return yield({ op = "http", request = request }) end,
  get = function(url, options)
    local request = { url = url, method = "GET" }
    for k, v in pairs(options or {}) do request[k] = v end
    return yield({ op = "http", request = request })
  end,
}

-- effect.file.read{ path = "notes.txt", response = "loaded" } and write, append, list, remove,
-- exists: the result arrives as { type = response, ok = true, contents | entries | exists } or
-- { type = response, ok = false, error = "..." }. `response` may be left out of write, append
-- and remove when nothing needs to know.
local file_operations = { "read", "write", "append", "list", "remove", "exists" }
effect.file = {}
for _, operation in ipairs(file_operations) do
  effect.file[operation] = function(request)
    if type(request) ~= "table" then
      error("effect.file." .. operation .. ": expected a request table, got " .. type(request), 2)
    end
    return { kind = "file", operation = operation, request = request }
  end
end

-- file.read(path) and friends inside effect.run: each returns the result table.
effect.file_client = {}
for _, operation in ipairs(file_operations) do
  effect.file_client[operation] = function(path, contents)
    local request = { path = path, contents = contents }
    return yield({ op = "file", operation = operation, request = request })
  end
end

-- END GENERATED: effect kinds

return effect
