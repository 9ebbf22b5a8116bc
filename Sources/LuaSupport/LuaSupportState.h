// What the C files of LuaSupport share about a state; not part of the public header.
#ifndef LUA_SUPPORT_STATE_H
#define LUA_SUPPORT_STATE_H

#include "LuaSupport.h"

// ThreadSanitizer holds a signal back until its thread calls a function it intercepts, which a
// loop in Lua never does: the watchdog's signal would never stop such a loop. Built with it, a
// call counts its instructions from the first one, and the count hook asks the watchdog what
// its signal would have said (see lk_count_hook).
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define LK_SIGNALS_HELD_BACK 1
#endif
#endif
#ifndef LK_SIGNALS_HELD_BACK
#define LK_SIGNALS_HELD_BACK 0
#endif

// Small blocks of a state, by 16-byte size class up to 256 bytes (see LuaSupport.c).
enum { LK_POOL_GRANULE = 16, LK_POOL_CLASSES = 16, LK_POOL_SLAB = 16 * 1024 };

// New blocks are carved from two groups of slabs: strings, and everything else. A table sits
// beside its fields and its neighbours (one page for a todo read at random, not three), while
// the tables of a large structure that became garbage (the table `initial_state()` returned,
// once copied) free whole slabs: the strings the copy shares are not among them.
enum { LK_POOL_OBJECTS = 0, LK_POOL_STRINGS = 1, LK_POOL_GROUPS = 2 };

typedef struct lk_free_block {
  struct lk_free_block *next;
} lk_free_block;

// The first granule of every slab.
typedef struct lk_slab {
  struct lk_slab *next;  // every slab of the pool, linked
  uint32_t carved;       // bytes carved from it into blocks
  uint32_t free;         // of those, bytes on the free lists (counted by lk_pool_trim)
} lk_slab;

enum { LK_MAX_ORPHANS = 64 };

typedef struct {
  lk_free_block *free[LK_POOL_CLASSES];  // freed blocks, one list a class
  // The unused rest of each group's newest slab (LK_POOL_GROUPS).
  char *cursor[LK_POOL_GROUPS];
  char *end[LK_POOL_GROUPS];
  lk_slab *current[LK_POOL_GROUPS];  // the slab the cursor is in
  lk_slab *slabs;
  size_t slab_count;
} lk_pool;

// Bookkeeping beside each state. A pointer to it lives in the state's extra space, which Lua
// copies into every coroutine, so the hook and the trampoline reach it from any thread.
typedef struct {
  size_t memory_used;          // what Lua asked for and holds
  size_t large_bytes;          // blocks from malloc; with the pool's slabs, what the VM holds
  size_t memory_limit;         // 0: no cap; bounds what the VM holds, slabs included
  int enforce_memory;          // the cap applies only while Lua code runs under lk_pcall
  int64_t instruction_limit;   // 0: no budget
  int64_t instructions_used;
  // Why the call in flight was stopped (its budget spent, its time up), or LK_FAILURE_NONE. A
  // stop is final for the whole top-level call: every instruction after it raises, every place
  // that catches an error raises it again, and the call fails even when Lua code caught the
  // error (see lk_stop). The memory cap is not a stop: its error is Lua's own, and Lua code may
  // catch it and go on (docs/transactions.md says why).
  lk_failure stopped;
  int call_depth;              // nesting of lk_pcall; the budget is per top-level call
  lk_failure last_failure;
  void *owner;
  lua_Integer journal_length;  // entries (three slots each) in the transaction journal
  lua_State *journal;          // the journal's segment being written (Journal.c)
  lua_Integer journal_segment; // its place in the list of segments, 0 the oldest
  int journal_room;            // slots it takes before it must be given more
  lua_Integer proxies_made;    // real tables given a proxy by the open transaction
  int kept_grew;               // a sweep kept proxies weakly since the last full collection
  lk_pool pool;
  lua_State *main;     // the state's main thread
  int watch_slot;      // the state's slot in the watchdog's table, or -1 (Watchdog.c)
  _Atomic int *arm_request;  // the slot's request to arm the hook, read on every allocation
  int watching;        // the watchdog watches the call in flight on `main`
  int main_hooked;     // the count hook is on `main` for this call
  double time_limit;     // seconds a top-level call may run, 0: none
  // When the call in flight began, for a state with no watchdog slot: its own hook and charges
  // look at the clock instead (lk_check_unwatched_time).
  int64_t call_started_ns;
  lua_State *entered;    // the thread the call in flight entered on
  int transaction_open;  // state tables may be written (Transaction.c)
  // The state's shape (StateShape.c): a bound on its height (0: not known), the bound when
  // the transaction began, whether a write may have left it out of shape, and its root.
  lua_Integer shape_bound;
  lua_Integer shape_bound_at_begin;
  int shape_dirty;
  const void *shape_root;
  // What the adoption of a stored table met (Transaction.c): its height, and whether a state
  // table was inside it.
  int adopt_height;
  int adopt_met_state_table;
  int close_depth;       // coroutine.close calls in progress, nested (CoroutineLibrary.c)
  int charging;          // a top-level call with a budget is in flight: allocations count
  int orphan_count;      // malloc blocks Lua shrank to a small size (see lk_resize)
  void *orphans[LK_MAX_ORPHANS];
  int *name_slots;       // registry slots of the interned names, by index; 0: not yet (Names.c)
  int name_capacity;
} lk_info;

static inline lk_info *lk_info_of(lua_State *L) {
  return *(lk_info **)lua_getextraspace(L);
}

// lua_pcall for the host's own work (a write, a copy, an undo, a journal replaced): outside
// the memory cap, as marshalling is, so it does not fail for want of memory the reducer used.
static inline int lk_pcall_uncapped(lua_State *L, int arguments, int results) {
  lk_info *info = lk_info_of(L);
  int saved_enforce = info->enforce_memory;
  info->enforce_memory = 0;
  int status = lua_pcall(L, arguments, results, 0);
  info->enforce_memory = saved_enforce;
  return status;
}

// The instruction budget (LuaSupport.c, Watchdog.c).
void lk_arm_instruction_budget(lua_State *L);
/// Stops the call in flight for `reason` (its budget or its time): from now on every instruction
/// of every thread it runs raises the limit's error, and the call fails whatever catches it.
void lk_stop(lua_State *L, lk_failure reason);
/// Raises the error of the stop in effect (lk_stop), naming the Lua line at `level`.
int lk_raise_stop(lua_State *L, int level);
/// For C code that caught an error (a pcall or resume of its own), or is about to return to
/// Lua code: a stop in effect is raised again at once, so no catch lets Lua code go on past a
/// limit.
void lk_caught(lua_State *L);
/// Charges `work` units (instructions, or elements and bytes a C function goes through) to
/// the budget of the call in flight, raising the instruction limit error when it is spent.
void lk_charge(lua_State *L, lua_Integer work);

// Arrays (Transaction.c): whether the table at `index` has the array marker; marks it.
int lk_has_array_marker(lua_State *L, int index);
void lk_mark_array(lua_State *L, int index);
/// Raises the memory limit error, as an allocation of `bytes` would, when they do not fit in
/// what the cap leaves: a C function checks before doing the work that would build them.
void lk_reserve_memory(lua_State *L, size_t bytes);
// How deep the tables of a state may nest, counting the root: what a snapshot and a saved file
// hold (LuaValue.maximumDepth).
enum { LK_STATE_MAX_DEPTH = 200 };
// The state's shape (StateShape.c). A write of the table at `value` through `proxy` into the
// real table at `real` under `key`, about to happen: `existing` when it was a state table already, else the
// height of the table it was adopted into (-1: a state table was inside it).
void lk_shape_note_store(
    lua_State *L, int proxy, int real, int key, int value, int existing, int height);
/// A transaction begins on the state whose proxy is at `state`.
void lk_shape_begin(lua_State *L, int state);
/// The transaction was rolled back: the bound is what it was when it began.
void lk_shape_rolled_back(lua_State *L);
/// The host wrote the state: its height is not known.
void lk_shape_forget(lua_State *L);
// The hidden keys (HiddenKeys.c): proxy[&lk_real_key] is the real table a proxy stands for,
// real[&lk_proxy_key] the proxy a real table has, once one was made.
extern const char lk_real_key;
extern const char lk_proxy_key;
static inline int lk_is_hidden_key(lua_State *L, int index) {
  if (lua_type(L, index) != LUA_TLIGHTUSERDATA) return 0;
  const void *key = lua_touserdata(L, index);
  return key == &lk_proxy_key || key == &lk_real_key;
}
/// If the value at `index` is a proxy, pushes its real table and returns 1; otherwise pushes
/// nothing and returns 0. What sits under the hidden key is checked to be a table.
static inline int lk_push_real_of(lua_State *L, int index) {
  if (lua_type(L, index) != LUA_TTABLE) return 0;
  if (lua_rawgetp(L, index, &lk_real_key) == LUA_TTABLE) return 1;
  lua_pop(L, 1);
  return 0;
}
// Transactions and the functions that see raw tables (Transaction.c).
void lk_transactions_open(lua_State *L);
// The transaction journal (Journal.c): `journal_length` entries of three values, (table, key,
// old value), or (table, the adoption key, old metatable) for an adoption.
void lk_journal_open(lua_State *L);
/// Gives the segment being written room for at least one more entry; raises the memory error
/// (or the memory limit's) if it cannot, before anything is written.
void lk_journal_reserve(lua_State *L);
/// Moves the three values on top of the stack into the journal as its newest entry; raises
/// (having moved nothing) if the journal cannot grow.
static inline void lk_journal_push(lua_State *L) {
  lk_info *info = lk_info_of(L);
  if (__builtin_expect(info->journal_room < 3, 0)) lk_journal_reserve(L);
  lua_xmove(L, info->journal, 3);
  info->journal_room -= 3;
  info->journal_length += 1;
}
/// Drops the newest entry (once an undo applied it).
void lk_journal_drop(lua_State *L);
/// Pushes field 1, 2 or 3 of the entry `entry` (0: the oldest), leaving the journal as it is.
void lk_journal_push_field(lua_State *L, lua_Integer entry, int field);
/// A journal of more entries than this is replaced by a new, small one when it is forgotten:
/// Lua never shrinks a stack that was asked for its room, so it would keep its peak size (16
/// bytes a slot, three slots an entry) for the life of the VM. Less than a segment's entries.
enum { LK_JOURNAL_REPLACED_ABOVE = 4096 };
/// Forgets a journal of more than LK_JOURNAL_REPLACED_ABOVE entries (lk_journal_forget).
void lk_journal_forget_large(lua_State *L);
/// Empties the journal after a commit or a rollback (twice an action: inline, and nothing to do
/// for a journal already empty).
static inline void lk_journal_forget(lua_State *L) {
  lk_info *info = lk_info_of(L);
  lua_Integer length = info->journal_length;
  if (length == 0) return;
  info->journal_length = 0;
  if (length > LK_JOURNAL_REPLACED_ABOVE || info->journal_segment != 0) {
    lk_journal_forget_large(L);
    return;
  }
  // One segment, the first, holds the whole journal: its stack is the entries.
  info->journal_room += (int)length * 3;
  lua_settop(info->journal, 0);
}
/// Whether the journal key at `index` marks an adoption (table, marker, old metatable) rather
/// than a write.
int lk_is_adoption_key(lua_State *L, int index);
// The standard libraries, with the functions the state replaces (Libraries.c): each file opens
// its own, over Lua's.
void lk_open_libraries(lua_State *L);
void lk_base_library_open(lua_State *L);       // BaseLibrary.c
void lk_coroutine_library_open(lua_State *L);  // CoroutineLibrary.c
void lk_string_library_open(lua_State *L);     // StringLibrary.c
void lk_patterns_open(lua_State *L);           // Patterns.c
void lk_table_library_open(lua_State *L);      // TableLibrary.c
void lk_utf8_library_open(lua_State *L);       // UTF8Library.c
/// What the watchdog does to the call in flight on a state, given when the state claims its
/// slot (so the watchdog calls nothing of the budget's by name): arm its count hook, or stop it
/// for its time. Both may be called from the watchdog's signal handler, on the call's thread.
typedef void (*lk_watch_action)(lua_State *L);
int lk_watch_claim(lua_State *L, lk_watch_action arm, lk_watch_action stop_for_time);
void lk_watch_release(int slot);
/// A call begins on the slot's state; `armed`: it counts its budget already (or has none).
int lk_watch_begin(int slot, int armed);
void lk_watch_set_time_limit(int slot, double seconds);
/// Stops the call in flight at its next instruction: it ran past its time limit. Called from
/// the watchdog's signal handler, on the call's own thread.
void lk_stop_for_time(lua_State *L);
int lk_watch_end(int slot);
/// Whether the watchdog asked the call in flight to arm its hook (its signal may be blocked);
/// true once, and then the caller arms it (the call counts as armed from then on).
int lk_watch_arm_requested(int slot);
_Atomic int *lk_watch_arm_request(int slot);
/// CLOCK_MONOTONIC in nanoseconds.
int64_t lk_monotonic_ns(void);

// MARK: - Loading source (LuaSupport.c)

/// The most bytes of Lua source the parser is given at once. Parsing is not counted by the
/// budget as it goes, and some sources cost far more per byte than others (a name looked up
/// through 200 nested functions of 200 locals each): between two pieces a load checks the
/// stop, the budget and the time, so no parse runs long unchecked.
enum { LK_SOURCE_PIECE = 1024, LK_SOURCE_BYTES_PER_INSTRUCTION = 8 };

/// Charges `bytes` of source about to be parsed: to the call in flight (raising its stop), or,
/// outside any call, against the time limit from `started_ns`, raising past it.
void lk_charge_source(lua_State *L, size_t bytes, int64_t started_ns);

#endif
