-- The trusted chunk behind Lua tests: the runner's `describe`/`it`, busted-style assertions,
-- and `TestStore`, whose methods yield requests to the Swift host (which drives the real
-- TestStore) with the test's file and line, taken with `debug.getinfo` here, outside the
-- sandbox the tests run in.
--
-- It returns `install(env, describe_value)`: `install` puts the globals into a test's sandbox
-- environment and returns the collected tests; `describe_value(v)` prints a value for messages.

local getinfo, raw_yield, isyieldable, type, pairs, ipairs, tostring, error =
  debug.getinfo, coroutine.yield, coroutine.isyieldable, type, pairs, ipairs, tostring, error

-- A request to the host, which runs the test as a coroutine. The function given to send or
-- receive is called by the host to change the expected state, outside that coroutine: there is
-- no one to ask from there, and Lua's own error would say only "attempt to yield from outside
-- a coroutine".
-- The requests made, which `coroutine.resume` and `wrap` pass on up to the host when a coroutine
-- the test made yields one (CoroutineLibrary.c): a TestStore called there yielded to the test's
-- coroutine, and the call was dropped (the action never sent, the expectation never checked, the
-- test green). The table is in the registry, which no test code reaches.
local issued = debug.getregistry()["composable.passed_on"]
-- The test running (`run` sets it), nil while the file loads and its tests are collected.
local current_test
-- The running test's requests not answered yet, and the first call it made that could not be
-- asked: the test fails for either when its body ends, whatever caught the error (a `pcall`
-- around `table.sort` with a comparator that called the store passed, the call dropped).
local pending, unasked = {}, nil

local function call_name(request)
  return request.op == "state" and "store.state" or request.op == "new" and "TestStore.new"
    or ("store:" .. request.op .. "()")
end

-- What the host resumes the test with after a request: a token of this test first (`run` gets
-- it), then the answer. Resumed without it, the request was not the host's to answer: another
-- resume of the coroutine it was made in (one left suspended when it could not be asked, then
-- resumed by the test or an xpcall's handler, or by the function given to send), and the call
-- never reached the store.
local answer_token
local function answered(request, token, ...)
  if token ~= answer_token or answer_token == nil then
    local message = call_name(request) .. " was resumed without the store's answer: the "
      .. "coroutine it was made in was resumed by the test, not by the store (after it could "
      .. "not be asked, or from the function given to send or receive); to fix, call the store "
      .. "from the test's body"
    unasked = unasked or { file = request.file, line = request.line, message = message }
    error(message, 0)
  end
  pending[request] = nil
  return ...
end

local function yield(request)
  if not isyieldable() then
    local what = call_name(request)
    if current_test == nil then
      error(what .. " cannot be used while the file loads, outside a test; to fix, make the "
        .. "store in it() or before_each()", 0)
    end
    local message
    if select(2, coroutine.running()) then
      message = what .. " cannot be used inside the function given to send or receive, which "
        .. "changes the expected state it gets as its argument; to fix, read what it needs "
        .. "before the call"
    else
      message = what .. " cannot be used inside a function Lua calls from C, which cannot wait "
        .. "for the store (string.gsub's function, table.sort's comparator, a metamethod, an "
        .. "xpcall's handler); to fix, call it from the test's body"
    end
    unasked = unasked or { file = request.file, line = request.line, message = message }
    error(message, 0)
  end
  issued[request], pending[request] = true, true
  return answered(request, raw_yield(request))
end

-- A coroutine the test made (coroutine.wrap, coroutine.create) that calls the store: its
-- request yields to whoever resumed it, not to the host, and was dropped (the action never
-- sent, the expectation never checked, the test green). `resume` and `wrap` in a test pass a
-- request on, up to the host, and resume the coroutine with the answer, as busted runs a call
-- at once wherever it is.
local concat, sort, format = table.concat, table.sort, string.format

-- The place in the test file that called a library function: level 3 is the test's code.
-- The file is the chunk's whole name: `short_src` cuts a name of more than 59 bytes (a long
-- path) to "...its end", which no editor can open. A C function there (`pcall(store.send, ...)`)
-- or a frame of this chunk (a tail call, `return store:send(...)`, left the runner's frame in the
-- test's place) is passed over to the first test code above it; with none, the place is the
-- test's own `it`.
local sub = string.sub
local runner_source = getinfo(1, "S").source
local function site(level)
  level = level or 3
  while true do
    local info = getinfo(level, "Sl")
    if info == nil then break end
    if info.what ~= "C" and info.source ~= runner_source then
      if sub(info.source, 1, 1) == "@" then return sub(info.source, 2), info.currentline end
      return info.short_src, info.currentline
    end
    level = level + 1
  end
  if current_test then return current_test.file, current_test.line end
  return "?", 0
end

-- The most a value described in a failure message takes, in bytes: past it the text is cut
-- and ends "… N more bytes", as the host's own descriptions are (LuaValue.prettyLimit), unless
-- what is past it is no longer than that note (a few bytes more are kept to know: LuaText).
local describe_limit = 65536
local describe_slack = 40
-- The deepest a described table is written: deeper ones are `{…}`. Each level's indentation is
-- a string of its own, so 8,000 levels took 64 MB and the failure's message was lost to "not
-- enough memory" (an attacker's finding); 64 levels are already 128 columns in.
local describe_depth = 64

local function key_order(a, b)
  if type(a) == type(b) and (type(a) == "number" or type(a) == "string") then return a < b end
  return type(a) < type(b)
end

-- A value for a person, one field a line. A table reached twice (or inside itself) is written
-- once after a label, <1>{ ... }, and is <1> after, so a table at 2^40 places costs its tables.
-- JSON's null, said as the name a test writes it by (tostring gives "userdata: (nil)"): the
-- test's own `composable.json`, found when the runner is installed.
local json_null

local function describe_value(value)
  local seen, shared = {}, {}
  local function find(t)
    if seen[t] then shared[t] = true return end
    seen[t] = true
    for k, v in next, t do  -- raw: a value's __pairs is not run to describe it
      if type(k) == "table" then find(k) end
      if type(v) == "table" then find(v) end
    end
  end
  if type(value) == "table" then find(value) end
  local parts, used, omitted, labels, count = {}, 0, 0, {}, 0
  local capacity = describe_limit + describe_slack
  local function emit(text)
    if omitted > 0 then omitted = omitted + #text return end
    local room = capacity - used
    if #text <= room then
      parts[#parts + 1] = text
      used = used + #text
      return
    end
    while room > 0 and (text:byte(room + 1) or 0) & 0xC0 == 0x80 do room = room - 1 end
    parts[#parts + 1] = text:sub(1, room)
    used = used + room
    omitted = #text - room
  end
  local function write(v, indent, depth)
    if type(v) == "string" then return emit(format("%q", v)) end
    if json_null ~= nil and v == json_null then return emit("json.null") end
    -- A float as tostring writes it (14 digits) may read back as another: written whole, so
    -- that two that differ never print alike (0.1 + 0.2 against 0.3 did).
    if math.type(v) == "float" and v == v and tonumber(tostring(v)) ~= v then
      local whole = format("%.17g", v)
      -- Still a float: 2^53 as `%.17g` writes it read as the integer beside it.
      if not whole:find("[.eEn]") then whole = whole .. ".0" end
      return emit(whole)
    end
    if type(v) ~= "table" then return emit(tostring(v)) end
    if labels[v] then return emit("<" .. labels[v] .. ">") end
    if shared[v] then
      count = count + 1
      labels[v] = count
      emit("<" .. count .. ">")
    end
    if next(v) == nil then return emit("{}") end
    if depth >= describe_depth then return emit("{…}") end
    local keys = {}
    for k in next, v do keys[#keys + 1] = k end
    sort(keys, key_order)
    emit("{\n")
    for i, k in ipairs(keys) do
      emit(indent .. "  ")
      if type(k) == "string" and k:match("^[%a_][%w_]*$") then
        emit(k)
      else
        emit("[")
        write(k, indent .. "  ", depth + 1)
        emit("]")
      end
      emit(" = ")
      write(v[k], indent .. "  ", depth + 1)
      emit(i < #keys and ",\n" or "\n")
    end
    emit(indent .. "}")
  end
  write(value, "", 0)
  local text = concat(parts)
  local function note(bytes) return "… " .. bytes .. " more bytes" end
  if used <= describe_limit then return text end
  local past = used - describe_limit
  if omitted == 0 and past <= #note(past) then return text end
  local kept = describe_limit
  while kept > 0 and text:byte(kept + 1) & 0xC0 == 0x80 do kept = kept - 1 end
  return text:sub(1, kept) .. note(#text - kept + omitted)
end

-- Whether two numbers are one value as a state holds it, as the TestStore compares them: of
-- one subtype (1 is not 1.0), 0.0 not -0.0, and a NaN the same as a NaN of its sign (tostring
-- prints `-nan` and `nan`; a NaN is never `==` itself).
local function same_number(a, b)
  if math.type(a) ~= math.type(b) then return false end
  if a ~= a or b ~= b then return a ~= a and b ~= b and tostring(a) == tostring(b) end
  if a == 0 and b == 0 then return 1 / a == 1 / b end
  return a == b
end

-- Whether a and b hold the same, as the TestStore compares states (numbers by same_number).
-- Each pair of tables is compared once (and counts as the same while it is compared, so a
-- cycle ends).
local function same(a, b, seen)
  if type(a) == "number" and type(b) == "number" then return same_number(a, b) end
  if a == b then return true end
  if type(a) ~= "table" or type(b) ~= "table" then return false end
  seen = seen or {}
  local pairs_of_a = seen[a]
  if pairs_of_a == nil then
    pairs_of_a = {}
    seen[a] = pairs_of_a
  end
  if pairs_of_a[b] then return true end
  pairs_of_a[b] = true
  for k, v in pairs(a) do if not same(v, b[k], seen) then return false end end
  for k in pairs(b) do if a[k] == nil then return false end end
  return true
end

-- What a failed test says of its error: a table without `__tostring` as data (`{ code = 1 }`),
-- as a reducer's report says it, bounded and read raw (the host's own description, which runs no
-- metamethod); `tostring` gave its address, another each run, and ran its `__name`; a
-- `__tostring` that fails, as the host says it.
local rawget, raw_getmetatable = rawget, debug.getmetatable
local describe_table = debug.getregistry()["composable.describe_table"]
local function describe_error(err)
  if type(err) ~= "table" then return tostring(err) end
  local metatable = raw_getmetatable(err)
  if metatable == nil or rawget(metatable, "__tostring") == nil then return describe_table(err) end
  local ok, text = pcall(tostring, err)
  if ok and type(text) == "string" then return text end
  return "(error object is a table value)"
end

-- A failure raised by an assertion: a table, so the runner can tell it from a Lua error, by its
-- metatable (a table of the test's with an `assertion` field was taken for one). Its
-- `__tostring` says it where the host describes it: raised in the function given to send or
-- receive, the report printed its fields.
local failure_metatable = {
  __tostring = function(failure)
    return failure.file .. ":" .. failure.line .. ": " .. tostring(failure.message)
  end,
  __metatable = "composable.test failure",  -- getmetatable cannot change it or make one
}
local function is_failure(err)
  return type(err) == "table" and raw_getmetatable(err) == failure_metatable
end
-- An assertion's own message, any value (`assert.truthy(ok, err)` with a table error): as a
-- report says it, or nil for none. It was printed as the runner's fields, or raised "attempt to
-- concatenate a table value".
local function said(message)
  if message == nil or type(message) == "string" then return message end
  return describe_error(message)
end
local function lead(message)
  local text = said(message)
  return text and text .. "\n" or ""
end

local function fail(message, level)
  local file, line = site(level or 4)
  error(setmetatable({ file = file, line = line, message = message }, failure_metatable), 0)
end

-- `assert(v, message)` as Lua's: it returns all its arguments, wants one, and with a message that
-- is no string (nil included, when given) raises the message itself: a `pcall` around it gets
-- that object, and the report says it as it says `error(t)`. With a string or none it fails the
-- test at its line.
local select = select
local assert = setmetatable({}, { __call = function(_, ...)
  local count, value, message = select("#", ...), ...
  if count == 0 then error("bad argument #1 to 'assert' (value expected)", 2) end
  if not value then
    if count >= 2 and type(message) ~= "string" then error(message, 0) end
    fail(message or "assertion failed!")
  end
  return ...
end })

function assert.same(expected, actual, message)
  if not same(expected, actual) then
    local passed, wanted = describe_value(actual), describe_value(expected)
    -- Alike as far as they are described: said, or the failure reads as two equal values.
    local deeper = passed == wanted and "\n(They differ deeper than the " .. describe_depth
      .. " levels described, or past the bytes shown.)" or ""
    fail(lead(message) .. "Expected objects to be the same.\n"
      .. "Passed in:\n" .. passed .. "\nExpected:\n" .. wanted .. deeper)
  end
end

-- The test's frame is 5 levels up from `fail` here: each assertion calls this directly (never
-- as a tail call, which would drop its frame), so it is the same for all of them.
local function equal(expected, actual, message)
  -- `==`, but a NaN equals a NaN of its sign: the failure printed `-nan` for both sides.
  local nans = expected ~= expected and actual ~= actual
  if expected ~= actual and not (nans and tostring(expected) == tostring(actual)) then
    fail(lead(message) .. "Expected objects to be equal.\n"
      .. "Passed in:\n" .. describe_value(actual) .. "\nExpected:\n" .. describe_value(expected),
      5)
  end
end

function assert.equal(expected, actual, message) equal(expected, actual, message) end

function assert.truthy(value, message)
  if not value then
    fail(said(message) or ("Expected to be truthy, but value was:\n" .. describe_value(value)))
  end
end

function assert.falsy(value, message)
  if value then
    fail(said(message) or ("Expected to be falsy, but value was:\n" .. describe_value(value)))
  end
end

-- The error's text that `pattern` is looked for in: an assertion's message, a string, or what a
-- report says of the error (a table's fields, raw: its `__index` is not run).
function assert.error(fn, pattern)
  local ok, err = pcall(fn)
  if ok then fail("Expected an error, but none was raised") end
  if pattern ~= nil then
    local text = is_failure(err) and rawget(err, "message") or err
    if type(text) ~= "string" then text = describe_error(text) end
    if not text:find(pattern) then
      fail("Expected an error matching " .. format("%q", pattern) .. ", got:\n" .. text)
    end
  end
end
assert.has_error = assert.error
assert.are = { same = assert.same, equal = assert.equal }
assert.is_true = function(value, message) equal(true, value, message) end
assert.is_false = function(value, message) equal(false, value, message) end
assert.is_nil = function(value, message) equal(nil, value, message) end

-- TestStore: every method yields a request to the host with the caller's file and line.
local feature_names = {}   -- module table -> the name it was required by
local TestStore = {}
TestStore.__index = function(store, key)
  if key == "state" then
    local file, line = site(3)
    return yield({ op = "state", store = rawget(store, "id"), file = file, line = line })
  end
  return TestStore[key]
end

function TestStore.new(spec)
  if type(spec) ~= "table" then error("TestStore.new: expected a table, got " .. type(spec), 2) end
  local file, line = site(3)
  local request = {}
  for k, v in pairs(spec) do request[k] = v end
  if type(spec.feature) == "table" then
    request.feature = feature_names[spec.feature]
    if request.feature == nil then
      error("TestStore.new: feature must be a module loaded with require "
        .. "(it runs in a VM of its own)", 2)
    end
  elseif spec.feature ~= nil and type(spec.feature) ~= "string" then
    -- Missing, it is said by the host, after the fields it does not take (`Feature = ...`).
    error("TestStore.new: feature must be a module (require(\"counter\")) or its name, got "
      .. type(spec.feature), 2)
  end
  local id = yield({ op = "new", spec = request, file = file, line = line })
  return setmetatable({ id = id }, TestStore)
end

local function request(store, op, extra)
  local file, line = site(4)
  extra.op, extra.store, extra.file, extra.line = op, rawget(store, "id"), file, line
  return yield(extra)
end

-- No tail calls here (`return request(...)`): a tail call drops the method's frame, and the
-- caller's line would be looked up one level too far.
function TestStore:send(action, update)
  local result = request(self, "send", { action = action, update = update })
  return result
end
function TestStore:receive(match, update)
  local result = request(self, "receive", { match = match, update = update })
  return result
end
function TestStore:advance(seconds)
  local result = request(self, "advance", { seconds = seconds or 0 })
  return result
end
-- The methods with no argument. (Each result goes through a local: a tail call would drop the
-- method's frame, and `request` counts frames to find the test's line.)
for _, op in ipairs({
  "finish", "skip_received_actions", "skip_in_flight_effects", "effects_in_flight",
}) do
  TestStore[op] = function(self)
    local result = request(self, op, {})
    return result
  end
end

-- The runner: describe blocks run at once to collect; tests run later, one by one.
-- The thread the host runs a test in: the runner's requests are its yields. A test's own
-- `coroutine.yield` there would reach the host as a request (a forged one crashed the run): it
-- raises as Lua's does outside a coroutine, which a test's body is, as far as it knows.
local test_thread
-- The threads running an `expect_failure` body, and how many each runs: a body may not yield
-- out of itself, or the failures of what ran meanwhile (a wrong send, the test's own) were taken
-- as its own when it was resumed and ended (an attacker closed one in an after_each).
local expecting = setmetatable({}, { __mode = "k" })
local function guarded_yield(yield_of_sandbox)
  return function(...)
    local thread = coroutine.running()
    if test_thread ~= nil and thread == test_thread then
      error("attempt to yield from outside a coroutine", 0)
    end
    if expecting[thread] then
      error("coroutine.yield inside expect_failure's function: the failures it expects must "
        .. "happen inside it; to fix, resume the coroutine from inside the function until it "
        .. "yields no more, or call expect_failure inside the coroutine's work", 2)
    end
    return yield_of_sandbox(...)
  end
end

local function install(env)
  -- Patched in place: `require("coroutine")` gives the same table, and a copy left it the
  -- library unguarded (a test yielded its own requests to the host through it, and a forged
  -- `expect_failure` erased every failure).
  local library = env.coroutine
  if type(library) == "table" then library.yield = guarded_yield(library.yield) end
  local real_require = env.require
  local json_found, json = pcall(real_require, "composable.json")
  if json_found and type(json) == "table" then json_null = json.null end
  env.require = function(name)
    local ok, module = pcall(real_require, name)
    -- The error is the test's, at its line: not this wrapper's.
    if not ok then error((tostring(module):gsub("^[^:]*composable%.test:%d+: ", "")), 2) end
    if type(module) == "table" then feature_names[module] = name end
    return module
  end
  local tests, stack = {}, { { name = nil, before = {}, after = {} } }
  local function full_name(name)
    local parts = {}
    for _, block in ipairs(stack) do if block.name then parts[#parts + 1] = block.name end end
    parts[#parts + 1] = name
    return concat(parts, " ")
  end
  -- The blocks a test is in, outermost first: their hooks are read when it runs, as busted
  -- reads them, so an `after_each` written below an `it` runs for it too (it ran for the tests
  -- declared after it only, and an expectation in it was never checked for the others).
  local function blocks()
    local result = {}
    for i, block in ipairs(stack) do result[i] = block end
    return result
  end
  -- A declaration's arguments, checked where it is made: a body missing or a name of another
  -- kind failed later, in the runner's own lines. A declaration inside a running test was
  -- collected after the collection was over, and never ran, unsaid.
  local function check_declaration(what, name, body, needs_body)
    if current_test ~= nil then
      error(what .. "() inside a test, whose tests and hooks would never run; to fix, declare it "
        .. "at the file's top level or in a describe block", 3)
    end
    if name ~= false and type(name) ~= "string" then
      error(what .. ": expected a name (a string), got " .. type(name), 3)
    end
    if needs_body and type(body) ~= "function" then
      error(what .. ": expected a function after the name, got " .. type(body), 3)
    end
  end
  env.describe = function(name, body)
    check_declaration("describe", name, body, true)
    stack[#stack + 1] = { name = name, before = {}, after = {} }
    body()
    stack[#stack] = nil
  end
  env.context = env.describe
  local function declare_pending(name)
    check_declaration("pending", name, nil, false)
    local file, line = site(3)
    tests[#tests + 1] = { name = full_name(name), pending = true, file = file, line = line }
  end
  env.pending = declare_pending
  env.it = function(name, ...)
    -- A test given no function at all is pending, as in busted; one given nil (a misspelt
    -- variable) is a mistake, said at its line.
    local given, body = select("#", ...), ...
    check_declaration("it", name, body, given > 0)
    if given == 0 then return declare_pending(name) end
    local file, line = site(3)
    tests[#tests + 1] = {
      name = full_name(name), body = body, blocks = blocks(), file = file, line = line,
    }
  end
  env.before_each = function(hook)
    check_declaration("before_each", false, hook, true)
    local block = stack[#stack]
    block.before[#block.before + 1] = hook
  end
  env.after_each = function(hook)
    check_declaration("after_each", false, hook, true)
    local block = stack[#stack]
    block.after[#block.after + 1] = hook
  end
  -- expect_failure(pattern, body): the TestStore failures `body` causes that match `pattern` (a
  -- Lua pattern, or a list of them) are expected, not recorded; a pattern none matches is a
  -- failure.
  -- (Swift's withKnownIssue, for an action that must fail: store:send(...) reports, it does
  -- not raise.)
  env.expect_failure = function(pattern, body)
    local patterns = type(pattern) == "table" and pattern or { pattern }
    if #patterns == 0 then
      error("expect_failure: expected a pattern (a string) or a list of them, got "
        .. (type(pattern) == "table" and "a table with no list" or type(pattern)), 2)
    end
    for i = 1, #patterns do
      if type(patterns[i]) ~= "string" then
        error("expect_failure: expected a pattern (a string) or a list of them, got "
          .. (type(pattern) == "table" and "a " .. type(patterns[i]) .. " in the list"
            or type(pattern)), 2)
      end
    end
    if type(body) ~= "function" then
      error("expect_failure: expected a function, got " .. type(body), 2)
    end
    local file, line = site(3)
    local mark = yield({ op = "expect_failure", file = file, line = line })
    do
      -- Counted down however the body ends (an error goes on with its own traceback).
      local thread = coroutine.running()
      expecting[thread] = (expecting[thread] or 0) + 1
      local _ <close> = setmetatable({}, { __close = function()
        expecting[thread] = expecting[thread] > 1 and expecting[thread] - 1 or nil
      end })
      body()
    end
    local result = yield({
      op = "expect_failure", mark = mark, patterns = { table.unpack(patterns) }, file = file,
      line = line,
    })
    return result
  end
  env.assert = assert
  env.__composable_test = { TestStore = TestStore }
  env.__composable_tests = tests
  return tests
end

-- Runs one collected test: before_each hooks, the test, after_each hooks (always). Returns nil,
-- or the failure: { message, file, line } for an assertion, { message, traceback } for an error.
local traceback = debug.traceback
-- Level 3: above this handler, the C function the sandbox's xpcall calls it from (it keeps a
-- limit's error from handlers, see BaseLibrary.c); then where the error was raised.
-- The runner's own failure goes as it is (its fields read raw), any other error as a report says
-- it (describe_error, above).
local function capture(err)
  if is_failure(err) then
    return { file = rawget(err, "file"), line = rawget(err, "line"),
             message = rawget(err, "message") }
  end
  return { message = describe_error(err), traceback = traceback(nil, 3) }
end

-- The failure of a store call the test made that never reached the store, if one did not: a
-- call never answered (made in a coroutine not resumed again, or resumed where the test cannot
-- wait) or never asked (above). Looked at after the body and after the after_each hooks.
local function dropped_call()
  local call = next(pending)
  if call ~= nil then
    pending = {}
    return {
      file = call.file, line = call.line,
      message = call_name(call) .. " was never answered: the coroutine it was made in was "
        .. "not resumed again, or was resumed where the test cannot wait (in string.gsub's "
        .. "function, table.sort's comparator, a metamethod Lua calls from C); to fix, resume it "
        .. "from the test's body until it ends",
    }
  end
  local found = unasked
  unasked = nil
  return found
end

local function run(test, token)
  test_thread = coroutine.running()
  issued[test_thread] = true  -- resumed by the host alone (CoroutineLibrary.c)
  current_test = test
  pending, unasked, answer_token = {}, nil, token
  local ok, failure = xpcall(function()
    for _, block in ipairs(test.blocks) do
      for _, hook in ipairs(block.before) do hook() end
    end
    test.body()
  end, capture)
  -- A failed body is one failure: a call it dropped is not said again after the hooks.
  if ok then failure = dropped_call() else pending, unasked = {}, nil end
  ok = failure == nil
  -- The body's failure is said before the after_each hooks run: what they find (an effect
  -- still running, an action not received) follows from it, and comes after it.
  if not ok then raw_yield({ op = "failed", failure = failure }) end
  local after_ok, after_failure = xpcall(function()
    for _, block in ipairs(test.blocks) do
      for _, hook in ipairs(block.after) do hook() end
    end
  end, capture)
  if not after_ok then return after_failure end
  return dropped_call()
end

-- apply(update, state): the state after the test's update function changed it.
local function apply(update, state)
  update(state)
  return state
end

-- matches(predicate, action): a receive predicate's answer.
local function matches(predicate, action) return predicate(action) == true end

return install, run, describe_value, apply, matches
