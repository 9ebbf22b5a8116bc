// The C half of the bridge: everything Swift cannot do itself, kept small.
//
// - `static inline` shims for the Lua API that is made of macros or variadics.
// - `lk_newstate`/`lk_close`: a state whose allocator enforces a memory cap and whose count
//   hook enforces an instruction budget, both only while Lua code runs under `lk_pcall`.
// - `lk_pcall`: every call into Lua goes through it: protected, with a traceback handler.
// - `lk_push_host_function`: a Lua C closure over a Swift function. The Swift function never
//   raises; it returns a status and the C trampoline raises, so a longjmp never crosses a
//   Swift frame.
#ifndef LUA_SUPPORT_H
#define LUA_SUPPORT_H

#include <lua5.4/lua.h>
#include <lua5.4/lualib.h>
#include <lua5.4/lauxlib.h>
#include <stddef.h>
#include <stdint.h>

// MARK: - Macro shims

static const int LK_REGISTRYINDEX = LUA_REGISTRYINDEX;
static const int LK_MULTRET = LUA_MULTRET;
static const int LK_NOREF = LUA_NOREF;
static const int LK_REFNIL = LUA_REFNIL;
static const lua_Integer LK_RIDX_GLOBALS = LUA_RIDX_GLOBALS;

static inline void lk_pop(lua_State *L, int n) { lua_pop(L, n); }
static inline void lk_newtable(lua_State *L) { lua_newtable(L); }
static inline const char *lk_tostring(lua_State *L, int i) { return lua_tostring(L, i); }
static inline int lk_isnoneornil(lua_State *L, int i) { return lua_isnoneornil(L, i); }
static inline void lk_insert(lua_State *L, int i) { lua_insert(L, i); }
static inline void lk_remove(lua_State *L, int i) { lua_remove(L, i); }
static inline void lk_replace(lua_State *L, int i) { lua_replace(L, i); }
static inline int lk_upvalueindex(int i) { return lua_upvalueindex(i); }
static inline void lk_pushglobaltable(lua_State *L) { lua_pushglobaltable(L); }
/// A full garbage collection, then the host's own tables that the collection emptied made
/// small again (the proxies kept after a sweep, see Transaction.c).
int lk_gc_collect(lua_State *L);
/// Gives what the state freed back to the system: its pool's slabs that hold nothing, and what
/// malloc keeps free (after a large structure became garbage and was collected).
void lk_release_free_memory(lua_State *L);
static inline int lk_gc_count_kb(lua_State *L) { return lua_gc(L, LUA_GCCOUNT); }
static inline int lk_gc_count_b(lua_State *L) { return lua_gc(L, LUA_GCCOUNTB); }
static inline void *lk_newuserdata(lua_State *L, size_t size) {
  return lua_newuserdatauv(L, size, 0);
}

// MARK: - The state and its limits

/// Why the last `lk_pcall` failed, beyond Lua's own status code.
typedef enum {
  LK_FAILURE_NONE = 0,
  LK_FAILURE_INSTRUCTION_LIMIT = 1,
  LK_FAILURE_MEMORY_LIMIT = 2,
  LK_FAILURE_TIME_LIMIT = 3,
} lk_failure;

/// A new state with the standard libraries open, a memory cap (0: none) enforced only while
/// Lua code runs under `lk_pcall`, and an atpanic handler that names the bug and aborts.
lua_State *lk_newstate(size_t memory_limit);
/// Closes the state and frees the bookkeeping that lives beside it.
void lk_close(lua_State *L);

void lk_set_memory_limit(lua_State *L, size_t bytes);
size_t lk_memory_limit(lua_State *L);
size_t lk_memory_used(lua_State *L);
/// What the VM makes the process hold: large blocks and every slab of its pool.
size_t lk_memory_held(lua_State *L);
/// Instructions one top-level `lk_pcall` may run (0: unlimited).
void lk_set_instruction_limit(lua_State *L, int64_t instructions);
int64_t lk_instruction_limit(lua_State *L);
/// Seconds one top-level `lk_pcall` may run (0: no limit), whatever it runs: the backstop of the
/// instruction budget for work no count sees (comparing long strings, say). Checked by the
/// watchdog, so a call stops within a look (5 to 100 ms) after its time.
void lk_set_time_limit(lua_State *L, double seconds);
/// How often the watchdog found its signal handler replaced (by the host) and put it back.
unsigned lk_watch_handler_reinstalls(void);
/// Whether the main thread has the count hook now (between calls: only while a call that ran
/// long is in flight, see Watchdog.c).
int lk_main_thread_counts_instructions(lua_State *L);

/// Calls the function below `nargs` arguments with a traceback message handler, under the
/// limits. Returns Lua's status code; on error the message (with traceback) is on top.
int lk_pcall(lua_State *L, int nargs, int nresults);
/// The reason the most recent failed `lk_pcall` on this state failed.
lk_failure lk_last_failure(lua_State *L);

/// Resumes coroutine `co` with the `nargs` values on its stack, under the limits. Returns Lua's
/// status: LUA_YIELD or LUA_OK leave `*nresults` values on `co`; on an error the message, with
/// the coroutine's traceback, is pushed onto `L`.
int lk_resume(lua_State *L, lua_State *co, int nargs, int *nresults);
/// Closes the suspended or failed coroutine `co` (lua_resetthread) under the limits, as a
/// top-level call: its pending to-be-closed variables are closed. LUA_OK, or an error status
/// with the message on top of L. A coroutine that had failed is no new failure.
int lk_close_coroutine(lua_State *L, lua_State *co);

/// Pushes a table of Lua's own string.find, match, gmatch and gsub, which the state replaced
/// by versions that count their steps (Patterns.c): for tests that compare the two.
void lk_push_original_pattern_functions(lua_State *L);

/// Loads a chunk in text mode only: bytecode is refused.
int lk_loadtext(lua_State *L, const char *source, size_t length, const char *chunkname);

/// Loads a chunk of bytecode only, which keeps the name it was compiled with. For chunks the
/// build compiled (LuaPrecompiledChunk): Lua does not check bytecode, so bytes from anywhere
/// else could break the state.
int lk_loadbinary(lua_State *L, const unsigned char *bytecode, size_t length);

// MARK: - Host functions

/// A Swift function called from Lua. It returns the number of results it pushed, or -1 after
/// pushing an error message, which the trampoline raises. It must never raise itself.
typedef int (*lk_host_callback)(lua_State *L, void *context);
/// Called once when the closure is collected (or the state closes), to release `context`.
typedef void (*lk_host_release)(void *context);

/// Pushes a Lua function that calls `callback(L, context)`.
void lk_push_host_function(
    lua_State *L, lk_host_callback callback, lk_host_release release, void *context);

/// Whatever the host wants to reach from a callback (the owning VM), shared by all threads.
void lk_set_owner(lua_State *L, void *owner);
void *lk_owner(lua_State *L);

// MARK: - Transactions (Transaction.c)

/// Pushes the transactional proxy of the state table at `index`: reads go through to the
/// table, writes are applied and journaled while a transaction is open, refused otherwise.
void lk_push_transactional_proxy(lua_State *L, int index);
/// Tells the state which metatable marks arrays: the one metatable a stored table may have.
void lk_set_array_marker(lua_State *L, int index);

// MARK: - JSON (JSON.c)

/// Pushes the `composable.json` table: `encode`, `decode`, `array` and `null` (see JSON.c).
void lk_push_json_module(lua_State *L);
/// Pushes a C function that makes a new empty journaled table: not part of any state, but
/// written only inside transactions and rolled back with them (bookkeeping of a library).
void lk_push_journaled_table_function(lua_State *L);
/// If the value at `index` is a transactional proxy, pushes the table it stands for and returns
/// 1; otherwise pushes nothing and returns 0.
int lk_push_proxied_table(lua_State *L, int index);
/// `lua_next` for tables of a state: skips the keys that link tables and proxies. Every host
/// reader of a table that may belong to a state iterates with it.
int lk_next(lua_State *L, int index);
/// The host's write to the state behind the proxy at `proxy`: `value` into the field at `key`,
/// or, when `key` is 0, as the whole state (its fields replace the table's, in place). Not
/// journaled. Protected: returns Lua's status, with the message on top on failure.
int lk_state_write(lua_State *L, int proxy, int key, int value);
/// Opens a transaction on the state whose root proxy is in the registry at `state_slot`,
/// forgetting the journal of the last one: from now on state tables may be written, each write
/// journaled, and the state's shape is checked against that root (StateShape.c).
void lk_transaction_begin(lua_State *L, int state_slot);
/// Undoes every write of the open transaction, newest first, and closes it. Returns LUA_OK, or
/// Lua's status if the undo itself failed (out of memory).
int lk_transaction_rollback(lua_State *L);
/// Closes the open transaction: its writes stay.
void lk_transaction_commit(lua_State *L);
/// What a write to a state table outside a transaction raises (after the Lua line): the host
/// says why its state is read-only. Set before any Lua code runs (it allocates).
void lk_set_read_only_message(lua_State *L, const char *message);
/// Where the VM keeps whether a write of the open transaction may have left its state out of
/// shape (non-zero: then, and only then, `lk_transaction_check_shape` walks it): read there,
/// for the cost of a load rather than a call, after every action.
const int *lk_transaction_shape_flag(lua_State *L);
/// Whether the open transaction left its state in shape (at most 200 levels deep, no table
/// inside itself): LUA_OK, or an error status with the message naming the place on the stack.
int lk_transaction_check_shape(lua_State *L, int state);
int lk_transaction_is_open(lua_State *L);
/// Whether the open transaction changed the field `key` of the state at `root` (its proxy or
/// real table), or anything it reaches; with `key` nil, anything of the state. A write that left
/// the value the transaction began with changes nothing. 1 when it could not tell.
int lk_transaction_changed_field(lua_State *L, int root, int key);
/// Pushes the `composable.journal` module: `table()` (lk_push_journaled_table_function), and
/// what state tables held when the open transaction began, `was_set(t, key)` and
/// `had_element(t, key, field, value)`.
void lk_push_journal_module(lua_State *L);
/// Makes state tables read-only for a while inside an open transaction (Lua code the host calls
/// between the reducer and the commit); returns what `lk_transaction_reopen_writes` restores.
int lk_transaction_close_writes(lua_State *L);
void lk_transaction_reopen_writes(lua_State *L, int was_open);
/// Whether the open (or last) transaction wrote anything.
int lk_transaction_wrote(lua_State *L);
/// Inside a transaction, what it changed in the state at `root` (a proxy or its real table), as
/// the host reads it (see TransactionChanges.c). Pushes a table of three tables, each keyed by
/// a table's address (light userdata): [1] the first old value of each key the transaction
/// wrote in that table (nil as the marker `lk_changes_is_nil_marker` knows); [2] every table
/// of the state before or now; [3] those that changed, or hold one that did. Returns LUA_OK, or
/// an error status with the message on the stack instead.
int lk_transaction_changes(lua_State *L, int root);
/// Whether the value at `index` is the marker of an old value that was nil.
int lk_changes_is_nil_marker(lua_State *L, int index);
/// Pushes a copy of the value at `index` as a state holds data (see DataCopy.c): plain tables,
/// arrays marked, no table keys, no cycles, at most 200 deep. Returns LUA_OK, or an error
/// status with a short reason on the stack instead.
int lk_copy_data(lua_State *L, int index);
/// Pushes interned name `index`: the string made from `bytes` the first time and kept in the
/// registry, then pushed from there (no hashing of the bytes, no lookup in the string table).
/// Returns 0, pushing nothing, when the table of names cannot grow (out of memory).
int lk_push_name(lua_State *L, int index, const char *bytes, size_t length);
/// Makes the value at `index` a tagged table, the tag field's name being the string in registry
/// slot `tag_ref`: a string `s` becomes `{ [tag] = s }`, and a table must have a string under
/// `tag`. Returns 0 (leaving the value) if it is neither.
int lk_normalize_tagged(lua_State *L, int index, int tag_ref);

#endif
