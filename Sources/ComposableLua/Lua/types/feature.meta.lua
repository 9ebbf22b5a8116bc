---@meta
-- LuaLS annotations for ComposableLua features: the shapes the host and the library pass
-- around. Written by `composable new`; the library's own files are the reference
-- (docs/lua-api.md says the same in prose).

---An action: a table with a string `type`, or a bare string as shorthand for `{ type = s }`.
---@class Action
---@field type string
---@field [string] any

---What a reducer returns for the host to run; `nil` is no effect.
---@class Effect
---@field kind string

---@alias Reducer fun(state: table, action: Action, env: Env): Effect?

---The host's values for the reducer (`--env NAME=VALUE`, `TestStore.new{ env = ... }`), and
---the store's deterministic dependencies.
---@class Env
---@field [string] any
local Env = {}

---A UUID string from the store's generator (`--uuid incrementing` in the host).
---@return string
function Env.uuid() end

---Seconds since 1970 from the store's date (`now = ...` in a test).
---@return number
function Env.now() end

---As `math.random`, from the store's seeded generator (`--seed N` in the host).
---@param m? integer
---@param n? integer
---@return number
function Env.random(m, n) end

---The table a feature script returns.
---@class Feature
---@field reduce Reducer
---@field initial_state? fun(): table
---@field migrate? fun(state: table) On a reload, and on a state other code saved (a transaction).
---@field persist? PersistSpec From `composable.persist{ ... }`.
---@field actions? string[] The action types the feature handles, for tools.

---What `effect.http` answers with, as the action named by `response`.
---@class HttpResponse: Action
---@field ok boolean true for a status 200...299 whose body parsed (as JSON when it said so)
---@field status? integer
---@field headers? table<string, string>
---@field body? string
---@field json? any the body decoded, when the response is JSON
---@field error? string why, when `ok` is false

---What `effect.file.*` answers with, as the action named by `response`.
---@class FileResponse: Action
---@field ok boolean
---@field contents? string read: the file's bytes
---@field data? any read with `json = true`: the contents decoded
---@field entries? string[] list: the names in the directory
---@field exists? boolean exists
---@field error? string why, when `ok` is false

-- Inside `effect.run(function(send) ... end)` these globals reach the host; each yields.

---Waits `seconds` on the store's clock.
---@param seconds number
function sleep(seconds) end

http = {}
---@param request HttpRequest
---@return HttpResponse
function http.request(request) end
---@param url string
---@param options? table
---@return HttpResponse
function http.get(url, options) end

file = {}
---@param path string
---@return FileResponse
function file.read(path) end
---@param path string
---@param contents string
---@return FileResponse
function file.write(path, contents) end
---@param path string
---@param contents string
---@return FileResponse
function file.append(path, contents) end
---@param path string
---@return FileResponse
function file.list(path) end
---@param path string
---@return FileResponse
function file.remove(path) end
---@param path string
---@return FileResponse
function file.exists(path) end
