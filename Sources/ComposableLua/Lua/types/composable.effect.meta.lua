---@meta composable.effect
-- LuaLS annotations for `require("composable.effect")`: effects as descriptions the host runs.

---@class composable.effect
local effect = {}

-- Each kind's annotation, copied from its file in Sources/ComposableLua/Effects by
-- scripts/generate-effect-kinds: edit them there.
-- BEGIN GENERATED: effect kinds

---No work.
---@type Effect
effect.none = nil

---Feeds `action` back into the store right after this one.
---@param action Action|string
---@return Effect
function effect.send(action) end

---Runs the effects at once.
---@param ... Effect?
---@return Effect
function effect.merge(...) end

---Runs the effects one after another.
---@param ... Effect?
---@return Effect
function effect.concat(...) end

---Sends `action` after `seconds` on the store's clock.
---@param seconds number
---@param action Action|string
---@return Effect
function effect.after(seconds, action) end

---Sends `action` every `seconds` until cancelled.
---@param seconds number
---@param action Action|string
---@return Effect
function effect.every(seconds, action) end

---The effect, cancellable with `effect.cancel(id)`.
---@param inner Effect?
---@param id string|number|boolean
---@param options? { cancel_in_flight: boolean }
---@return Effect
function effect.cancellable(inner, id, options) end

---Cancels the effects running under `id`.
---@param id string|number|boolean
---@return Effect
function effect.cancel(id) end

---Starts `inner` after `seconds` of quiet under `id`.
---@param inner Effect?
---@param id string|number|boolean
---@param seconds number
---@return Effect
function effect.debounce(inner, id, seconds) end

---Starts at most one effect every `seconds` under `id` (the latest, unless `latest = false`).
---@param inner Effect?
---@param id string|number|boolean
---@param seconds number
---@param options? { latest: boolean }
---@return Effect
function effect.throttle(inner, id, seconds, options) end

---Async work in a coroutine: `send(action)` feeds an action back; inside it `sleep`, `http`
---and `file` reach the host.
---@param work fun(send: fun(action: Action|string))
---@return Effect
function effect.run(work) end

---Waits `seconds` on the store's clock (inside `effect.run`).
---@param seconds number
function effect.sleep(seconds) end

---@class HttpRequest
---@field url string
---@field method? string "GET" by default
---@field query? table<string, string|number|boolean> appended to the URL, percent-encoded
---@field headers? table<string, string>
---@field body? string|table a table is sent as JSON
---@field timeout? number seconds
---@field response? string the type of the action the response arrives as

---An HTTP request; the response arrives as the action named by `request.response`.
---@param request HttpRequest
---@return Effect
function effect.http(request) end

---@class FileRequest
---@field path string under the host's data directory (or the test's files)
---@field contents? string write, append: the bytes to write
---@field data? any write, append with `json = true`: the value, written as JSON
---@field json? boolean read: answer with `data` decoded too; write, append: write `data`
---@field response? string the type of the action the result arrives as (needed by read,
---list and exists)

effect.file = {}
---@param request FileRequest
---@return Effect
function effect.file.read(request) end
---@param request FileRequest
---@return Effect
function effect.file.write(request) end
---@param request FileRequest
---@return Effect
function effect.file.append(request) end
---@param request FileRequest
---@return Effect
function effect.file.list(request) end
---@param request FileRequest
---@return Effect
function effect.file.remove(request) end
---@param request FileRequest
---@return Effect
function effect.file.exists(request) end

-- END GENERATED: effect kinds

return effect
