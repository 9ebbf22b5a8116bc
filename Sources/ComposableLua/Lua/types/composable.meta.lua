---@meta composable
-- LuaLS annotations for `require("composable")`: composing reducers.

---@class PersistSpec
---@field path string the file, under the host's data directory
---@field select? string the state field to save; the whole state when absent
---@field debounce? number seconds after the first unsaved change (1 by default; 0: every action)
---@field is_duplicate? fun(old: any, new: any): boolean true skips a save

---@class composable
---@field effect composable.effect
local composable = {}

---Runs the reducers in order on the same state and action, merging their effects.
---@param ... Reducer|{ reduce: Reducer }
---@return Reducer
function composable.combine(...) end

---Runs `reducer` on `state[state]` for actions `{ type = action, action = child }`.
---@param spec { state: string, action: string, reducer: Reducer|{ reduce: Reducer } }
---@return Reducer
function composable.scope(spec) end

---`scope` for a child that may be absent; its effects are cancelled when it goes.
---@param spec { state: string, action: string, reducer: Reducer|{ reduce: Reducer } }
---@return Reducer
function composable.if_let(spec) end

---Runs `reducer` on the element of `state[state]` with `id`, for actions
---`{ type = action, id = id, action = child }`.
---@param spec { state: string, action: string, reducer: Reducer|{ reduce: Reducer } }
---@return Reducer
function composable.for_each(spec) end

---@class OnChangeSpec
---@field of fun(state: table): any
---@field run fun(old: any, new: any, state: table, env: Env): Effect?
---@field reducer Reducer|{ reduce: Reducer }

---Runs `run(old, new, state, env)` when `of(state)` changed after `reducer`.
---@param spec OnChangeSpec
---@return Reducer
function composable.on_change(spec) end

---Has the host keep the state (or a field of it) on disk; set it as the feature's `persist`.
---@param spec PersistSpec
---@return PersistSpec
function composable.persist(spec) end

---The action as a table: `"increment"` becomes `{ type = "increment" }`.
---@param action Action|string
---@return Action
function composable.as_action(action) end

---The effect with each action it sends passed through `wrap`.
---@param effect Effect?
---@param wrap fun(action: Action): Action
---@return Effect?
function composable.map_effect(effect, wrap) end

return composable
