---@meta composable.json
-- LuaLS annotations for `require("composable.json")`.

---@class composable.json
local json = {}

---JSON's null: a light userdata, as in lua-cjson.
---@type lightuserdata
json.null = nil

---The JSON text of `value`: objects with their keys sorted, integers apart from floats; an
---error names the path of what has no JSON form (a function, NaN, a table with holes).
---@param value any
---@return string
function json.encode(value) end

---The value `text` stands for: arrays are marked as arrays (so `[]` stays one), `null` is
---`json.null`; an error names the line and column.
---@param text string
---@return any
function json.decode(text) end

---`t` (a new table by default), marked as an array, so it is written `[]` when empty.
---@generic T: table
---@param t? T
---@return T
function json.array(t) end

return json
