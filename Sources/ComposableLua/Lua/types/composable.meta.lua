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

---@class StackSpec
---@field state string the state field holding the stack (composable.stack_state())
---@field action string the action type of its screens' actions
---@field screens table<string, Reducer|{ reduce: Reducer }> each kind's reducer

---@class PresentsSpec
---@field state string the state field holding the destination (nil: nothing presented)
---@field action string the action type of the destination's actions
---@field destinations? table<string, Reducer|{ reduce: Reducer }> each kind's reducer

---@class StackScreen
---@field id integer its id in the stack, never used twice
---@field screen string its kind
---@field state table its own state

---@class StackState
---@field screens StackScreen[] the bottom first
---@field next_id integer

---An empty navigation stack.
---@return StackState
function composable.stack_state() end

---Pushes a screen of kind `screen`; returns its id.
---@param stack StackState
---@param screen string
---@param state? table
---@return integer
function composable.push(stack, screen, state) end

---Pops the top screen and returns it.
---@param stack StackState
---@return StackScreen?
function composable.pop(stack) end

---Pops every screen above the screen `id`.
---@param stack StackState
---@param id integer
function composable.pop_to(stack, id) end

---Pops the screen `id` and every screen above it.
---@param stack StackState
---@param id integer
function composable.pop_from(stack, id) end

---Pops every screen; the stack's ids go on (replacing the stack would start them again).
---@param stack StackState
function composable.pop_to_root(stack) end

---The screen `id`, or nil when it is not on the stack (how a parent reads the state of the
---screen an action came from).
---@param stack StackState
---@param id integer
---@return StackScreen?
function composable.screen(stack, id) end

---The top screen, or nil.
---@param stack StackState
---@return StackScreen?
function composable.top(stack) end

---Runs each screen's reducer (by its kind) for actions `{ type = action, id = id, action =
---child }`, and takes `{ type = action, pop_from = id }` and `{ type = action, push = { screen,
---state } }`. A screen's effects end when it leaves the stack.
---@param spec StackSpec
---@return Reducer
function composable.stack(spec) end

---@class Destination
---@field screen string its kind: a destination's name, "alert" or "confirmation_dialog"
---@field state table

---A destination to present: `{ screen = screen, state = state }`.
---@param screen string
---@param state? table
---@return Destination
function composable.present(screen, state) end

---@class DialogButton
---@field label string
---@field action? Action|string what tapping it sends to the presentation
---@field role? "cancel"|"destructive"

---@class DialogSpec
---@field title string
---@field message? string
---@field buttons? DialogButton[] one OK button by default

---An alert, as a destination.
---@param spec DialogSpec
---@return Destination
function composable.alert(spec) end

---A confirmation dialog, as a destination.
---@param spec DialogSpec
---@return Destination
function composable.confirmation_dialog(spec) end

---Runs the presented destination's reducer for actions `{ type = action, action = child }`;
---`dismiss` closes it, a dialog closes after its button's action, its effects end when it goes.
---@param spec PresentsSpec
---@return Reducer
function composable.presents(spec) end

---The effect a screen or presented child returns to dismiss itself.
---@type Effect
composable.dismiss = nil

---@class NavigationPlace
---@field address string how the REPL sends to it: action names, a screen's id after `#`
---@field stack? { id: integer, screen: string }[] a stack's screens, the bottom first (of a
---long stack, the bottom two and the top ten)
---@field hidden? integer how many screens of a long stack are not listed
---@field hidden_after? integer how many listed screens come before those not listed
---@field screen? string a presented destination's kind
---@field title? string a dialog's title
---@field buttons? { label: string, action?: Action|string }[] a dialog's buttons

---Where a session is, for tools (the REPL's `:screens`): the stacks and presented destinations
---in `state` that `stack` and `presents` declared, outermost first, at most `limit` (50).
---@param state table
---@param limit? integer
---@return NavigationPlace[]
function composable.navigation(state, limit) end

---The action names of the stacks and presentations this feature declared, sorted.
---@return { stacks: string[], presents: string[] }
function composable.declared_navigation() end

---Form bindings: `{ type = action, field = name, value = v }` writes a declared field after
---checking its type ("string", "number", "integer", "boolean", "table"; "?" allows nil).
---@param spec { action: string, fields: table<string, string>, state?: string }
---@return Reducer
function composable.bindings(spec) end

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
