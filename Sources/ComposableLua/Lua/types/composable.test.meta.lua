---@meta composable.test
-- LuaLS annotations for `require("composable.test")` and the globals of a `*_test.lua` file.

---What a test's `http` function is asked.
---@class TestHttpRequest
---@field method string
---@field url string
---@field body string

---What a test's `http` function answers: `json` is sent as JSON; `delay` answers after that
---many seconds of the test clock.
---@class TestHttpAnswer
---@field status integer
---@field body? string
---@field json? any
---@field headers? table<string, string>
---@field delay? number

---What a test's `files` function is asked; it returns the contents for read, the names for
---list, a boolean for exists, and raises to fail the operation.
---@class TestFileRequest
---@field operation string
---@field path string
---@field contents? string

---@class TestStoreSpec
---@field feature table|string the feature module, loaded with require, or its name
---@field state? table replaces what `initial_state()` gives
---@field env? table the feature's env
---@field http? fun(request: TestHttpRequest): TestHttpAnswer
---@field files? string|table<string, string>|fun(request: TestFileRequest): any a fixture
---directory beside the test (copied), names to contents, or a function
---@field uuid? "incrementing"
---@field answers? table<"uuid"|"now"|"random", any[]> what env.uuid(), env.now() and
---env.random() answer the reducer, each function's in order
---@field now? number seconds since 1970, for `env.now()`
---@field exhaustive? boolean false checks only what the test asserts

---@class TestStore
---@field state table the store's state now
local TestStore = {}

---@param spec TestStoreSpec
---@return TestStore
function TestStore.new(spec) end

---Sends `action`; `update(s)` makes the expected state from the one before.
---@param action Action|string
---@param update? fun(s: table)
function TestStore:send(action, update) end

---Waits for the next action an effect sends: its type, the whole action, or a predicate.
---@param match string|Action|fun(action: Action): boolean
---@param update? fun(s: table)
function TestStore:receive(match, update) end

---Moves the store's test clock forward.
---@param seconds? number
function TestStore:advance(seconds) end

---Waits for every effect to finish.
function TestStore:finish() end

function TestStore:skip_received_actions() end
function TestStore:skip_in_flight_effects() end

---The effects still running, in the order they started, once all that can run has run:
---`{ "effect.every with id tick", "the save of todos.saved.lua" }`.
---@return string[]
function TestStore:effects_in_flight() end

---@param name string
---@param body fun()
function describe(name, body) end
context = describe

---@param name string
---@param body fun()
function it(name, body) end

---@param name string
function pending(name) end

---Expects the TestStore failures `body` causes when one matches `pattern` (a Lua pattern);
---none matching is a failure. Returns how many failures it took.
---@param pattern string
---@param body fun()
---@return integer
function expect_failure(pattern, body) end

---@param hook fun()
function before_each(hook) end

---@param hook fun()
function after_each(hook) end

return { TestStore = TestStore }
