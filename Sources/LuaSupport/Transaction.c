// Transactions over a state, in C because they sit on the path of every read and write a
// reducer makes (the same proxies in Lua cost five times the reducer itself).
//
// The state is made of *real* tables that Lua code never holds. Feature code holds *proxies*:
// empty tables whose metamethods read through to their real table (handing out the proxies
// of nested tables, made once and kept in the table they stand for) and apply every write at
// once while journaling (table, key, old value). A failed action is rolled back from the
// journal, newest first; a good one's journal is forgotten when it commits. The cost is what
// the reducer touches, never the size of the state. docs/transactions.md has the whole design.
//
// The invariant: no value feature code can reach writes a real table without the journal.
// - A proxy keeps its real table, and a real table its proxy, under light-userdata keys that
//   Lua code cannot make. The functions that could hand those keys out (`next`, `pairs`,
//   `rawget`, `rawset`, `rawlen`) are replaced, for every chunk of the state, by versions that
//   understand proxies and never show a hidden key.
// - A plain table stored into the state is *adopted*: its contents move into a new real table
//   and the table itself becomes that table's proxy, so every reference anyone kept to it now
//   goes through the journal. Adoption is journaled too, and undone by a rollback.
// - Writes are refused outside a transaction (in the host's words), so a proxy kept
//   in a module local or an effect's coroutine cannot change committed state either.
// - Every C function here checks the type of what it reads from a hidden key before using it.
#include "LuaState.h"

#include "AddressMarks.h"

#include "KeyOrder.h"

#include <limits.h>

// lk_real_key and lk_proxy_key, the hidden keys, are HiddenKeys.c's.
// registry: the proxies' shared metatables (see "Flat reads" below). A new proxy gets the
// fresh one; its first read looks at its table and moves it to the warm one (a table holding no
// table) or the plain one; a warm proxy's next read in a transaction gives it flat reads.
static const char lk_metatable_key = 0;        // plain: reads go through lk_proxy_index
static const char lk_fresh_metatable_key = 0;  // not read yet
static const char lk_warm_metatable_key = 0;   // read once, its table holding no table
static const char lk_nested_metatable_key = 0;  // read once, its table holding a table
static const char lk_marker_key = 0;    // registry: the metatable that marks arrays (host's)
static const char lk_adopted_key = 0;   // journal entry: (table, &lk_adopted_key, old metatable)
static const char lk_made_key = 0;      // registry: real tables given a proxy (see below)
static const char lk_kept_key = 0;      // registry: real -> proxy, weak, after a sweep (below)
static const char lk_flat_key = 0;      // registry: proxies with flat reads for this action
static const char lk_given_key = 0;     // registry: proxies given lasting flat reads, this one
static const char lk_lasting_key = 0;   // registry: proxies with lasting flat reads, weak keys
static const char lk_canary_key = 0;    // registry: { table made at the last count }, weak

// The metamethods' upvalues: __index holds the fresh metatable, which it gives a nested table's
// new proxy; a flat-read proxy's __newindex holds its real table.
#define LK_FRESH_METATABLE lua_upvalueindex(1)
#define LK_FLAT_REAL lua_upvalueindex(1)

static const char lk_metatables_key = 0;  // registry: tables set as metatables, weak keys
static const char lk_read_only_key = 0;  // registry: what a write outside a transaction says
// Keys of a state are data a saved file can hold: two tables that hold the same things read
// the same to the host, so as keys they would collapse into one entry in every snapshot and
// every saved file; a function, a coroutine or a userdata has no saved form at all.
static int lk_is_data_key_type(int type) {
  return type == LUA_TSTRING || type == LUA_TNUMBER || type == LUA_TBOOLEAN;
}

// Values of a state are data too, not code: a function or a coroutine has no saved form (a
// save refused it, and every save after, while the run went on), prints as an address that
// differs from run to run (a diff, a test, a time travel showed changes where there were none),
// and compares by identity. Refused when written, as actions refuse them. A userdata is let be:
// `json.null` is one, and JSON decoded into the state holds it (a save says it cannot keep it).
static int lk_is_data_value_type(int type) {
  return type != LUA_TFUNCTION && type != LUA_TTHREAD;
}

// The name of a value of type `type` that is no data, for a refusal.
static const char *lk_no_data_name(int type) {
  switch (type) {
    case LUA_TTABLE: return "a table";
    case LUA_TFUNCTION: return "a function";
    case LUA_TTHREAD: return "a coroutine";
    case LUA_TLIGHTUSERDATA: return "a light userdata";
    default: return "a userdata";
  }
}

// Pushes where the Lua code that wrote is: the first Lua line up the stack, past the table
// library's C functions (`table.insert(state.list, print)` wrote through `table.insert`).
static void lk_push_writer_place(lua_State *L) {
  lua_Debug ar;
  for (int level = 1; level <= 3 && lua_getstack(L, level, &ar); level++) {
    if (lua_getinfo(L, "Sl", &ar) && ar.currentline > 0) {
      lua_pushfstring(L, "%s:%d: ", ar.short_src, ar.currentline);
      return;
    }
  }
  lua_pushliteral(L, "");
}

// Raises the refusal of a value of type `type` (not data), after the Lua line that wrote when
// `where`.
static int lk_raise_value_refused(lua_State *L, int type, int where) {
  if (where) lk_push_writer_place(L);
  else lua_pushliteral(L, "");
  lua_pushfstring(L, "%s cannot be kept in the state (state is data: tables, strings, numbers "
                     "and booleans; keep a name for what it does)", lk_no_data_name(type));
  lua_concat(L, 2);
  return lua_error(L);
}

// Raises the refusal of a key of type `type` (not a data key), after the Lua line that wrote
// when `where`.
static int lk_raise_key_refused(lua_State *L, int type, int where) {
  const char *what = lk_no_data_name(type);
  if (where) lk_push_writer_place(L);
  else lua_pushliteral(L, "");
  lua_pushfstring(L, "%s cannot be a state key (keys are strings, numbers and booleans)", what);
  lua_concat(L, 2);
  return lua_error(L);
}

// Raises the refusal of a write outside a transaction, after the Lua line that wrote: in the
// words the host gave (lk_set_read_only_message), which know why the state is read-only.
static __attribute__((noinline)) int lk_raise_read_only(lua_State *L) {
  luaL_where(L, 1);
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_read_only_key) != LUA_TSTRING) {
    lua_pop(L, 1);
    lua_pushliteral(L, "state tables are read-only outside a transaction");
  }
  lua_concat(L, 2);
  return lua_error(L);
}

void lk_set_read_only_message(lua_State *L, const char *message) {
  lua_pushstring(L, message);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &lk_read_only_key);
}

// Raises `message` as is: the write that called for it adds where it happened in Lua code.
static int lk_raise(lua_State *L, const char *message) {
  lua_pushstring(L, message);
  return lua_error(L);
}


// Proxies kept for speed, dropped after a sweep. A real table keeps the proxy made for it, so
// a nested table that action after action reads is wrapped once, not once per action. An
// action that gave more than lk_sweep_proxies tables a proxy swept the state (each todo
// touched once, say): at its commit or rollback those tables forget their proxies, and the
// proxies no Lua code holds are collected, so a sweep leaves no memory behind.
//
// A table has one proxy at a time, whatever happens: a proxy that Lua code still holds (in a
// module local, say) must stay `rawequal` to what reading the state gives, or `table.move(kept,
// 1, 3, 2, state.list)` would take two tables for one. So the forgotten links go to a table with
// weak values (registry[&lk_kept_key], real -> proxy): a proxy no one holds is collected and
// its entry goes with it; one still held is found there by the next read and linked again.
// The tables given a proxy are listed (registry[&lk_made_key]) only for the open transaction.
enum { lk_sweep_proxies = 4096 };

// Lists the real table at `index` as given a proxy by the open transaction. Before the link
// is made: if the list cannot grow, the error comes first and nothing is left unlisted.
static void lk_list_proxy_made(lua_State *L, int index) {
  lk_info *info = lk_info_of(L);
  if (!info->transaction.open) return;  // the host's root, a read between actions: kept
  index = lua_absindex(L, index);
  lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_made_key);
  lua_pushvalue(L, index);
  lua_rawseti(L, -2, info->transaction.proxies_made + 1);
  lua_pop(L, 1);
  info->transaction.proxies_made += 1;
}

// Pushes the proxy of the real table at `index`, the one it keeps (or kept, before a sweep
// dropped the link while Lua code still held the proxy) or a new one.
static void lk_push_proxy_of(lua_State *L, int index, int metatable) {
  index = lua_absindex(L, index);
  metatable = lua_absindex(L, metatable);
  if (lua_rawgetp(L, index, &lk_proxy_key) == LUA_TTABLE) return;
  lua_pop(L, 1);
  lk_list_proxy_made(L, index);
  lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_kept_key);
  lua_pushvalue(L, index);
  if (lua_rawget(L, -2) == LUA_TTABLE) {  // still held: linked again, and out of the weak table
    lua_pushvalue(L, -1);
    lua_rawsetp(L, index, &lk_proxy_key);
    lua_pushvalue(L, index);
    lua_pushnil(L);
    lua_rawset(L, -4);  // an existing key: allocates nothing
    lua_remove(L, -2);
    return;
  }
  lua_pop(L, 2);
  lua_createtable(L, 0, 1);
  lua_pushvalue(L, index);
  lua_rawsetp(L, -2, &lk_real_key);
  lua_pushvalue(L, metatable);
  lua_setmetatable(L, -2);
  lua_pushvalue(L, -1);
  lua_rawsetp(L, index, &lk_proxy_key);
}

// Replaces the table at the top by its proxy when it is a real table (it keeps one). The proxy
// it keeps is looked at first: the fresh metatable (a lookup in the registry) is needed only
// to make a new one, and `next` over a state's list runs this at every step.
static void lk_wrap_top(lua_State *L) {
  if (lua_type(L, -1) != LUA_TTABLE) return;
  if (lua_rawgetp(L, -1, &lk_proxy_key) == LUA_TTABLE) {
    lua_replace(L, -2);
    return;
  }
  lua_pop(L, 1);
  lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_fresh_metatable_key);
  lk_push_proxy_of(L, -2, -1);
  lua_replace(L, -3);
  lua_pop(L, 1);
}

// MARK: - Reading

// __index(proxy, key): the real table's value, a nested table as its proxy.
static int lk_proxy_index(lua_State *L) {
  if (lua_rawgetp(L, 1, &lk_real_key) != LUA_TTABLE) return luaL_error(L, "not a state table");
  lua_pushvalue(L, 2);
  if (lua_rawget(L, 3) == LUA_TTABLE) lk_push_proxy_of(L, -1, LK_FRESH_METATABLE);
  return 1;
}

static int lk_proxy_len(lua_State *L) {
  if (lua_rawgetp(L, 1, &lk_real_key) != LUA_TTABLE) return luaL_error(L, "not a state table");
  lua_pushinteger(L, (lua_Integer)lua_rawlen(L, -1));
  return 1;
}

static int lk_safe_next(lua_State *L);

// __pairs(proxy): the sandbox's `next`, as `pairs` gives for a plain table.
static int lk_proxy_pairs(lua_State *L) {
  lua_pushcfunction(L, lk_safe_next);
  lua_pushvalue(L, 1);
  lua_pushnil(L);
  return 3;
}

// MARK: - Flat reads

// A proxy whose table holds no table can be read without a metamethod: it gets a metatable of
// its own whose __index is the real table itself, so a read is a lookup the VM does (a read must
// hand out a nested table's proxy, which only the C __index does, so never while it holds one).
// The root gets them when it is flat (lk_choose_reads). Other tables get them once they are
// read in two transactions, or over and over in one (see the metatables' keys above): a table
// read once (a list shown a screen at a time, read one field of each) costs no more memory. At
// most lk_lasting_flat_limit proxies have them at a time: each is a metatable and a closure,
// about 250 bytes. They last until a table is stored in their table, a rollback takes back those
// its transaction gave, or a sweep drops the proxy (lk_sweep_proxies).
enum { lk_lasting_flat_limit = 4096 };
enum { lk_flat_read_fields = 64 };  // a table of more fields is not worth reads of its own

// What reads a table has: none (no metatable), one of the shared metatables', or flat reads.
enum {
  lk_reads_none, lk_reads_plain, lk_reads_fresh, lk_reads_warm, lk_reads_nested, lk_reads_flat,
  lk_reads_view
};

static int lk_view_newindex(lua_State *L);

static int lk_reads_of(lua_State *L, int table) {
  if (!lua_getmetatable(L, table)) return lk_reads_none;
  const void *metatable = lua_topointer(L, -1);
  const lk_transaction *transaction = &lk_info_of(L)->transaction;
  int reads = metatable == transaction->plain_metatable    ? lk_reads_plain
              : metatable == transaction->fresh_metatable  ? lk_reads_fresh
              : metatable == transaction->warm_metatable   ? lk_reads_warm
              : metatable == transaction->nested_metatable ? lk_reads_nested
                                                           : lk_reads_flat;
  if (reads == lk_reads_flat) {  // a metatable of its own: flat reads, or a view (below)
    lua_pushliteral(L, "__newindex");
    lua_rawget(L, -2);
    if (lua_tocfunction(L, -1) == lk_view_newindex) reads = lk_reads_view;
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return reads;
}

// Gives the table at `index` the shared metatable under `key` in the registry.
static void lk_set_shared_metatable(lua_State *L, int index, const char *key) {
  index = lua_absindex(L, index);
  lua_rawgetp(L, LUA_REGISTRYINDEX, key);
  lua_setmetatable(L, index);
}

// Whether the table at `index` holds no table.
static int lk_is_flat(lua_State *L, int index) {
  return lk_is_flat_within(L, lua_absindex(L, index), INT_MAX);
}

// Whether the table at `index` holds no table and at most lk_flat_read_fields fields: looked at
// at a proxy's first read and for a sort's every element, so the look is bounded whatever a
// table holds.
static int lk_is_small_and_flat(lua_State *L, int index) {
  return lk_is_flat_within(L, lua_absindex(L, index), lk_flat_read_fields);
}

static int lk_flat_proxy_newindex(lua_State *L);
static void lk_list_lasting(lua_State *L, int proxy);
static void lk_journaled_set(lua_State *L, int proxy, int key, int value, int real);

// Gives the proxy at `proxy`, over the flat table at `real`, a metatable of its own whose
// __index is the real table. No __pairs: the sandbox's `pairs` and `next` know proxies.
static void lk_give_flat_reads(lua_State *L, int proxy, int real) {
  proxy = lua_absindex(L, proxy);
  real = lua_absindex(L, real);
  lua_createtable(L, 0, 4);
  lua_pushvalue(L, real);
  lua_setfield(L, -2, "__index");
  lua_pushvalue(L, real);
  lua_pushcclosure(L, lk_flat_proxy_newindex, 1);
  lua_setfield(L, -2, "__newindex");
  lua_pushcfunction(L, lk_proxy_len);
  lua_setfield(L, -2, "__len");
  lua_pushliteral(L, "state");  // getmetatable/setmetatable cannot reach it
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, proxy);
}

// The proxy at `proxy` taken off the set of lasting flat reads, if it is in it.
static void lk_forget_lasting(lua_State *L, int proxy) {
  proxy = lua_absindex(L, proxy);
  lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_lasting_key);
  lua_pushvalue(L, proxy);
  if (lua_rawget(L, -2) != LUA_TNIL) {
    lua_pushvalue(L, proxy);
    lua_pushnil(L);
    lua_rawset(L, -4);  // an existing key: allocates nothing
    lk_info_of(L)->transaction.lasting_flat -= 1;
  }
  lua_pop(L, 2);
}

// Takes the reads of its own (`reads`, flat reads or a view) back from the proxy at `proxy`:
// it gets the shared metatable under `key`. Allocates nothing.
static void lk_leave_own_reads(lua_State *L, int proxy, int reads, const char *key) {
  if (reads == lk_reads_view) lk_info_of(L)->transaction.views -= 1;
  lk_set_shared_metatable(L, proxy, key);
  lk_forget_lasting(L, proxy);
}

// Takes flat reads back from the proxy at `proxy`, if it has them (a table was stored in its
// table): it gets the fresh metatable, so its table is looked at again at its next read.
static void lk_leave_flat_reads(lua_State *L, int proxy) {
  if (lk_reads_of(L, proxy) == lk_reads_flat) {
    lk_leave_own_reads(L, proxy, lk_reads_flat, &lk_fresh_metatable_key);
  }
}

// Takes flat reads or a view back from the proxy at `proxy`, if it has either: it gets the
// fresh metatable.
static void lk_leave_reads(lua_State *L, int proxy) {
  int reads = lk_reads_of(L, proxy);
  if (reads == lk_reads_flat || reads == lk_reads_view) {
    lk_leave_own_reads(L, proxy, reads, &lk_fresh_metatable_key);
  }
}

// Counts again the proxies with lasting flat reads, once the limit is reached: the count is too
// high only for proxies collected since (the set forgets them), so it is made again only after a
// collection has run (the canary, a table held weakly, is gone), at most once a transaction.
// Returns whether fewer than the limit have them.
static int lk_count_lasting_again(lua_State *L) {
  lk_transaction *transaction = &lk_info_of(L)->transaction;
  if (transaction->serial == transaction->counted_at) return 0;
  transaction->counted_at = transaction->serial;
  lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_canary_key);
  int collected = lua_rawgeti(L, -1, 1) == LUA_TNIL;
  lua_pop(L, 1);
  if (!collected) {
    lua_pop(L, 1);
    return 0;
  }
  lua_newtable(L);
  lua_rawseti(L, -2, 1);
  lua_pop(L, 1);
  lua_Integer count = 0;
  lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_lasting_key);
  lua_pushnil(L);
  while (lua_next(L, -2) != 0) {
    lua_pop(L, 1);
    int reads = lk_reads_of(L, -1);
    if (reads == lk_reads_flat || reads == lk_reads_view) {
      count += 1;
    } else {  // counted, but its flat reads were never given (out of memory)
      lua_pushvalue(L, -1);
      lua_pushnil(L);
      lua_rawset(L, -4);  // an existing key: allowed while traversing
    }
  }
  lua_pop(L, 1);
  transaction->lasting_flat = count;
  return count < lk_lasting_flat_limit;
}

enum { lk_lasting_given, lk_lasting_not_flat, lk_lasting_over_limit, lk_lasting_closed };

// Gives the proxy at `proxy` (its real table at `real`) flat reads that last, if its table is
// small and flat and fewer than the limit have them; a table that is not gets the plain
// metatable. Only in a transaction, which lists them for its rollback.
static int lk_give_lasting_flat_reads(lua_State *L, int proxy, int real) {
  lk_transaction *transaction = &lk_info_of(L)->transaction;
  if (!transaction->open) return lk_lasting_closed;
  if (transaction->lasting_flat >= lk_lasting_flat_limit && !lk_count_lasting_again(L)) {
    return lk_lasting_over_limit;
  }
  if (!lk_is_small_and_flat(L, real)) {
    lk_set_shared_metatable(L, proxy, &lk_metatable_key);
    return lk_lasting_not_flat;
  }
  lk_list_lasting(L, proxy);
  lk_give_flat_reads(L, proxy, real);
  return lk_lasting_given;
}

// MARK: - Views

// A proxy whose table holds tables is read through the C __index: a read must hand out a
// nested table's proxy. Read again in a transaction (a table a reducer goes down through over
// and over: `state.users[id].profile`), it gets a *view*: a table of what its reads found, the
// nested tables' proxies and the other values, filled by its reads (a miss calls lk_view_fill,
// which reads the real table and keeps what it found), and a metatable of its own whose
// __index is the view: a read of a key read before is a lookup the VM does. The view must
// never hold what its table no longer holds, so every way a table is written keeps its view in
// step or takes it back: a write through the proxy (lk_view_newindex, `rawset`) and a sort's
// write-back make the view forget the key; the table library's shifts take the view back for
// good (the plain metatable: a view would forget most of what it holds at each shift); a
// rollback takes every view back before its undo, and the host's write its table's (the fresh
// metatable: a view again at a later read). A view holds the proxies it found, so it keeps at
// most lk_view_entries of them (a list of 100,000 read once keeps no more than that alive; reads
// past them go to the real table each time); views count with flat reads against
// lk_lasting_flat_limit, and a sweep takes them back as it takes flat reads.
enum { lk_view_entries = 4096 };

// A view full for good: it holds half its entries or more, and gets no more.
static const lua_Integer lk_view_full = LUA_MAXINTEGER;

// Whether the view at 1 (of lk_view_fill) has room, once it was given lk_view_entries: the count
// also counts the keys it forgot (a write through its proxy forgets one, the next read gives it
// again), so a table written over and over would otherwise fill it with nothing and read
// through C for good. It counts what the view holds (one walk of at most lk_view_entries, after
// at least half of them given since the last) and goes on from there, or, holding half or more,
// is full for good. `kept` becomes the count.
static int lk_view_has_room(lua_State *L, lua_Integer *kept) {
  if (*kept == lk_view_full) return 0;
  lua_Integer held = 0;
  lua_pushnil(L);
  while (lua_next(L, 1) != 0) {
    lua_pop(L, 1);
    held += 1;
  }
  *kept = held >= lk_view_entries / 2 ? lk_view_full : held;
  lua_pushinteger(L, *kept);
  lua_replace(L, lua_upvalueindex(3));
  return *kept != lk_view_full;
}

// __index of a view (1 the view, 2 the key; upvalues: the real table, the fresh metatable, how
// many entries the view was given): what the real table holds, a nested table as its proxy,
// kept in the view while it has room (lk_view_has_room).
static int lk_view_fill(lua_State *L) {
  lua_settop(L, 2);
  if (lua_type(L, 2) == LUA_TLIGHTUSERDATA) {  // no such key in a state but hidden ones
    lua_pushnil(L);
    return 1;
  }
  lua_pushvalue(L, 2);
  int type = lua_rawget(L, lua_upvalueindex(1));  // 3
  if (type == LUA_TNIL) return 1;
  if (type == LUA_TTABLE) {
    lk_push_proxy_of(L, 3, lua_upvalueindex(2));
    lua_replace(L, 3);
  }
  lua_Integer kept = lua_tointeger(L, lua_upvalueindex(3));
  if (kept >= lk_view_entries && !lk_view_has_room(L, &kept)) return 1;
  lua_pushvalue(L, 2);
  lua_pushvalue(L, 3);
  lua_rawset(L, 1);
  lua_pushinteger(L, kept + 1);
  lua_replace(L, lua_upvalueindex(3));
  return 1;
}

// Whether the write under way in a proxy's __newindex (1 the proxy, 2 the key, 3 the value) is
// one for lk_write_scalar: in a transaction, under a string key, of a value that is no table (no
// form to check), with no element being moved by the table library (its mark is for
// lk_journaled_set).
static inline int lk_is_scalar_write(lua_State *L) {
  const lk_info *info = lk_info_of(L);
  int value = lua_type(L, 3);
  return info->transaction.open && info->shape.move_mark == NULL &&
         lua_type(L, 2) == LUA_TSTRING && value != LUA_TTABLE && lk_is_data_value_type(value);
}

// The hot path of a write (a field of an entity set to a number, a string, a boolean), through a
// proxy whose real table is at `real` (an upvalue): the same journal entry and write as
// lk_journaled_set's, with fewer values pushed: the real table takes the proxy's slot, so the
// key and the value are at the top where lua_rawset takes them.
static inline void lk_write_scalar(lua_State *L, int real) {
  lk_info_of(L)->shape.writes += 1;
  lua_copy(L, real, 1);
  lua_pushvalue(L, 1);
  lua_pushvalue(L, 2);
  lua_pushvalue(L, 2);
  lua_rawget(L, 1);
  lk_journal_push(L);  // the real table, the key, the value before
  lua_rawset(L, 1);
}

// __newindex of a proxy with a view (upvalues: its real table, its view): the write, then the
// view forgets the key (its next read fills it again). A write that stored a table took the
// view back already (lk_journaled_set): forgetting the key of a view no proxy uses is harmless.
static int lk_view_newindex(lua_State *L) {
  if (__builtin_expect(lk_is_scalar_write(L), 1)) {
    lua_pushvalue(L, 2);
    lua_pushnil(L);
    lua_rawset(L, lua_upvalueindex(2));  // first: a write that then fails leaves only a refill
    lk_write_scalar(L, lua_upvalueindex(1));
    return 0;
  }
  lua_pushvalue(L, lua_upvalueindex(1));  // 4: as lk_flat_proxy_newindex, a slot
  lk_journaled_set(L, 1, 2, 3, 4);
  lua_settop(L, 2);
  lua_pushnil(L);
  lua_rawset(L, lua_upvalueindex(2));  // nil for a key the view lacks: allocates nothing
  return 0;
}

// Gives the proxy at `proxy`, over the table at `real`, a view (empty: its reads fill it).
static void lk_give_view(lua_State *L, int proxy, int real) {
  proxy = lua_absindex(L, proxy);
  real = lua_absindex(L, real);
  lua_createtable(L, 0, 0);
  int view = lua_gettop(L);
  lua_createtable(L, 0, 1);
  lua_pushvalue(L, real);
  lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_fresh_metatable_key);
  lua_pushinteger(L, 0);
  lua_pushcclosure(L, lk_view_fill, 3);
  lua_setfield(L, -2, "__index");
  lua_setmetatable(L, view);
  lua_createtable(L, 0, 4);
  lua_pushvalue(L, view);
  lua_setfield(L, -2, "__index");
  lua_pushvalue(L, real);
  lua_pushvalue(L, view);
  lua_pushcclosure(L, lk_view_newindex, 2);
  lua_setfield(L, -2, "__newindex");
  lua_pushcfunction(L, lk_proxy_len);
  lua_setfield(L, -2, "__len");
  lua_pushliteral(L, "state");  // getmetatable/setmetatable cannot reach it
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, proxy);  // the last step: nothing after it can fail
  lk_info_of(L)->transaction.views += 1;
  lua_settop(L, view - 1);
}

// A proxy read before, its table holding a table then, read again: in a transaction, it gets
// flat reads if its table holds no table by now, else a view (or nothing yet, past the limit).
static void lk_give_lasting_view(lua_State *L, int proxy, int real) {
  lk_transaction *transaction = &lk_info_of(L)->transaction;
  if (!transaction->open) return;
  if (lk_is_small_and_flat(L, real)) {
    lk_give_lasting_flat_reads(L, proxy, real);
    return;
  }
  if (transaction->lasting_flat >= lk_lasting_flat_limit && !lk_count_lasting_again(L)) return;
  lk_list_lasting(L, proxy);
  lk_give_view(L, proxy, real);
}

// Takes every view back (a rollback, before its undo).
static __attribute__((noinline)) void lk_leave_views(lua_State *L) {
  lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_lasting_key);
  lua_pushnil(L);
  while (lua_next(L, -2) != 0) {
    lua_pop(L, 1);
    if (lk_reads_of(L, -1) == lk_reads_view) lk_leave_reads(L, -1);  // sets nil: allowed
  }
  lua_pop(L, 1);
  lk_info_of(L)->transaction.views = 0;
}

// Pushes the view of the proxy at `proxy` and returns 1 if it has one; 0, pushing nothing.
static int lk_push_view_of(lua_State *L, int proxy) {
  if (lk_reads_of(L, proxy) != lk_reads_view) return 0;
  lua_getmetatable(L, proxy);
  lua_pushliteral(L, "__index");
  lua_rawget(L, -2);
  lua_remove(L, -2);
  return 1;
}

// The view of the proxy at `proxy`, if it has one, forgets `key` (at `key`): its table was
// written behind it. Allocates nothing.
static void lk_view_forget(lua_State *L, int proxy, int key) {
  key = lua_absindex(L, key);
  if (!lk_push_view_of(L, proxy)) return;
  lua_pushvalue(L, key);
  lua_pushnil(L);
  lua_rawset(L, -3);
  lua_pop(L, 1);
}

void lk_leave_view_for_good(lua_State *L, int proxy) {
  if (lk_info_of(L)->transaction.views == 0) return;
  // Its array shifts: a view would forget most of what it holds at each shift, and be made
  // again (a look at every entry) at the next action. Such a table is read through C for good.
  if (lk_reads_of(L, proxy) == lk_reads_view) {
    lk_leave_own_reads(L, proxy, lk_reads_view, &lk_metatable_key);
  }
}

void lk_view_forget_index(lua_State *L, int proxy, lua_Integer i) {
  if (lk_info_of(L)->transaction.views == 0) return;
  proxy = lua_absindex(L, proxy);
  lua_pushinteger(L, i);
  lk_view_forget(L, proxy, -1);
  lua_pop(L, 1);
}

// Lists the proxy at `proxy` among the lasting ones the open transaction gives, and counts it.
// Listed first: if the list cannot grow, the error comes before the proxy changed. Counted
// before it is given: one counted but not given (out of memory) only leaves less room until the
// next count, which counts those with flat reads or a view.
static void lk_list_lasting(lua_State *L, int proxy) {
  lk_transaction *transaction = &lk_info_of(L)->transaction;
  proxy = lua_absindex(L, proxy);
  lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_given_key);
  lua_pushvalue(L, proxy);
  lua_rawseti(L, -2, transaction->lasting_given + 1);
  lua_pop(L, 1);
  transaction->lasting_given += 1;
  lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_lasting_key);
  lua_pushvalue(L, proxy);
  lua_pushboolean(L, 1);
  lua_rawset(L, -3);
  lua_pop(L, 1);
  transaction->lasting_flat += 1;
}

// __index of a proxy not read yet (1 the proxy, 3 its real table): its table looked at once.
static int lk_fresh_proxy_index(lua_State *L) {
  if (lua_rawgetp(L, 1, &lk_real_key) != LUA_TTABLE) return luaL_error(L, "not a state table");
  lk_set_shared_metatable(L, 1, lk_is_small_and_flat(L, 3) ? &lk_warm_metatable_key
                                                            : &lk_nested_metatable_key);
  lua_pushvalue(L, 2);
  if (lua_rawget(L, 3) == LUA_TTABLE) lk_push_proxy_of(L, -1, LK_FRESH_METATABLE);
  return 1;
}

// __index of a proxy read before, its table holding no table then: a read in a transaction
// gives it flat reads (or the plain metatable, if its table holds a table by now).
static int lk_warm_proxy_index(lua_State *L) {
  if (lua_rawgetp(L, 1, &lk_real_key) != LUA_TTABLE) return luaL_error(L, "not a state table");
  lk_give_lasting_flat_reads(L, 1, 3);
  lua_settop(L, 3);
  lua_pushvalue(L, 2);
  if (lua_rawget(L, 3) == LUA_TTABLE) lk_push_proxy_of(L, -1, LK_FRESH_METATABLE);
  return 1;
}

// __index of a proxy read before, its table holding a table then: a read in a transaction gives
// it a view (lk_give_lasting_view).
static void lk_view_forget(lua_State *L, int proxy, int key);
static int lk_nested_proxy_index(lua_State *L) {
  if (lua_rawgetp(L, 1, &lk_real_key) != LUA_TTABLE) return luaL_error(L, "not a state table");
  lk_give_lasting_view(L, 1, 3);
  lua_settop(L, 3);
  lua_pushvalue(L, 2);
  if (lua_rawget(L, 3) == LUA_TTABLE) lk_push_proxy_of(L, -1, LK_FRESH_METATABLE);
  return 1;
}

// MARK: - Adoption

static void lk_journal_append(lua_State *L, int table, int key, int value) {
  table = lua_absindex(L, table);
  key = lua_absindex(L, key);
  value = lua_absindex(L, value);
  lua_pushvalue(L, table);
  lua_pushvalue(L, key);
  lua_pushvalue(L, value);
  lk_journal_push(L);
}

static int lk_store_form(lua_State *L, int index, int depth);
static int lk_adopt_field_at_top(lua_State *L, int real, int depth);
static void lk_check_fields_in_order(lua_State *L, int index);
static int lk_adopt_fields_in_order(lua_State *L, int real, int depth);

_Static_assert(LK_ADOPT_MAX_DEPTH == LK_STATE_MAX_DEPTH, "an adoption's path holds its depths");

static void lk_raise_adopted_too_deep(lua_State *L) {
  lua_pushfstring(L, "a table stored in the state is nested more than %d levels deep",
                  LK_STATE_MAX_DEPTH);
  lua_error(L);
}

// The heights of the tables the adoption under way made part of the state that hold tables,
// below the one stored (an address set, AddressMarks.h, in the stack slot kept in lk_info, made at
// the first): a table met again is as deep as its longest path, whichever path met it first.
// Without them a table held at a shallow and a deep place was refused at the store or at the
// action's end (no pcall sees that), as the hash order of the fields met it by the long or the
// short path first. The table stored is met again only inside itself (a cycle), and one that
// holds no table cannot pass the limit where it is met again: neither is noted.
static void lk_note_adopted_height(lua_State *L, int real, int height) {
  int slot = lk_info_of(L)->transaction.adopt_heights;
  if (slot == 0) return;
  if (lua_isnil(L, slot)) {
    lk_address_marks_new(L, 16);
    lua_replace(L, slot);
  }
  lk_address_marks_set(L, slot, lua_topointer(L, real), (unsigned)height);
}

// The height of the state table at `real`, met again by the adoption: what the adoption found
// for it, or 0 when it found none (a table holding none, a table of the state before the store,
// which the shape walk measures, or one on the path being adopted: a cycle).
static int lk_adopted_height(lua_State *L, int real) {
  int slot = lk_info_of(L)->transaction.adopt_heights;
  if (slot == 0 || lua_isnil(L, slot)) return 0;
  return (int)lk_address_marks_of(L, slot, lua_topointer(L, real));
}

// Whether the real table `table`, met again at `depth`, is one being adopted above it.
static int lk_is_on_adoption_path(const lk_info *info, const void *table, int depth) {
  for (int level = 1; level < depth; level++) {
    if (info->transaction.adopt_path[level] == table) return 1;
  }
  return 0;
}

// Makes the plain table at `index` part of the state: its contents move into a new real table
// and it becomes that table's proxy, so references kept to it elsewhere go through the journal.
// Nested plain tables are adopted the same way; a proxy inside stands for its real table. The
// adoption is journaled first, so a failure at any point is undone by the rollback. Returns the
// table's height (1: it holds no table).
static int lk_adopt(lua_State *L, int index, int depth) {
  index = lua_absindex(L, index);
  if (depth >= LK_STATE_MAX_DEPTH) lk_raise_adopted_too_deep(L);
  luaL_checkstack(L, 8, "a table stored in the state is nested too deeply");
  lk_info *info = lk_info_of(L);
  if (depth > info->transaction.adopt_height) info->transaction.adopt_height = depth;
  int base = lua_gettop(L);
  if (__builtin_expect(lua_topointer(L, index) == info->transaction.string_metatable, 0)) {
    lk_raise(L, "a table that is a metatable cannot be stored in the state (state is plain "
                "data; store a copy of its fields)");
  }
  if (__builtin_expect(info->transaction.metatables_set, 0)) {
    // A metatable's fields are read raw by the VM: moved into a real table, another object's
    // metamethods and protection would go with them (its __index, its __metatable).
    lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_metatables_key);
    lua_pushvalue(L, index);
    int is_metatable = lua_rawget(L, -2) != LUA_TNIL;
    lua_settop(L, base);
    if (is_metatable) {
      lk_raise(L, "a table that is a metatable cannot be stored in the state (state is plain "
                  "data; store a copy of its fields)");
    }
  }
  if (lua_getmetatable(L, index)) {
    lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_marker_key);
    int marker = lua_rawequal(L, -1, -2);
    lua_pop(L, 1);
    if (!marker) {
      lk_raise(L, "a table with a metatable cannot be stored in the state (state is plain "
                  "data: tables, strings, numbers and booleans)");
    }
  } else {
    lua_pushnil(L);
  }
  int metatable = base + 1;
  lua_pushlightuserdata(L, (void *)&lk_adopted_key);
  lk_journal_append(L, index, -1, metatable);
  lua_pop(L, 1);
  if (__builtin_expect(info->transaction.adopt_in_key_order, 0)) lk_check_fields_in_order(L, index);
  lua_Integer count = 0;
  lua_pushnil(L);
  while (lua_next(L, index) != 0) {
    count += 1;
    int key_type = lua_type(L, -2);
    if (!lk_is_data_key_type(key_type)) lk_raise_key_refused(L, key_type, 0);
    int value_type = lua_type(L, -1);
    if (!lk_is_data_value_type(value_type)) lk_raise_value_refused(L, value_type, 0);
    lua_pop(L, 1);
  }
  lua_Integer sequence = (lua_Integer)lua_rawlen(L, index);
  if (sequence > count) sequence = count;
  lua_createtable(L, (int)sequence, (int)(count - sequence));
  int real = lua_gettop(L);
  lua_pushnil(L);
  while (lua_next(L, index) != 0) {
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_rawset(L, real);
  }
  // What may allocate comes before what changes the table, which then cannot fail.
  lk_list_proxy_made(L, real);
  lua_pushvalue(L, real);
  lua_rawsetp(L, index, &lk_real_key);
  lua_pushvalue(L, index);
  lua_rawsetp(L, real, &lk_proxy_key);
  lua_pushnil(L);
  while (lua_next(L, index) != 0) {
    lua_pop(L, 1);
    if (lk_is_hidden_key(L, -1)) continue;
    lua_pushvalue(L, -1);
    lua_pushnil(L);
    lua_rawset(L, index);  // an existing key: allowed while traversing
  }
  if (!lua_isnil(L, metatable)) {
    lua_pushvalue(L, metatable);
    lua_setmetatable(L, real);
  }
  lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_fresh_metatable_key);
  lua_setmetatable(L, index);
  info->transaction.adopt_path[depth] = lua_topointer(L, real);
  // The values: nested tables become real tables of the state too.
  int height = 1;
  if (__builtin_expect(info->transaction.adopt_in_key_order, 0)) {
    height = lk_adopt_fields_in_order(L, real, depth);
  } else {
    lua_pushnil(L);
    while (lk_next_visible(L, real) != 0) {
      if (lua_type(L, -1) == LUA_TTABLE) {
        int below = lk_adopt_field_at_top(L, real, depth);
        if (below >= height) height = below + 1;
      }
      lua_pop(L, 1);
    }
  }
  if (height > 1 && depth > 1) lk_note_adopted_height(L, real, height);
  lua_settop(L, base);
  return height;
}

// Adopts the table at the top (the value of the key just below it in the real table at `real`)
// and puts it in the real table's field as the state holds it; leaves the stack as it was.
// Returns its height.
static int lk_adopt_field_at_top(lua_State *L, int real, int depth) {
  int value = lua_gettop(L);
  lua_pushvalue(L, value);
  int height = lk_store_form(L, value + 1, depth + 1);
  if (!lua_rawequal(L, value, value + 1)) {
    lua_pushvalue(L, value - 1);
    lua_pushvalue(L, value + 1);
    lua_rawset(L, real);  // an existing key: allowed while traversing
  }
  lua_pop(L, 1);
  return height;
}

// The check of an adopted table's keys and values, in key order (a refused store tried again).
static void lk_check_fields_in_order(lua_State *L, int index) {
  luaL_checkstack(L, 4, "a table stored in the state is nested too deeply");
  lua_Integer count = lk_push_sorted_keys(L, index, 0);
  int list = lua_gettop(L);
  for (lua_Integer i = 1; i <= count; i++) {
    lua_rawgeti(L, list, i);
    int key_type = lua_type(L, -1);
    if (!lk_is_data_key_type(key_type)) lk_raise_key_refused(L, key_type, 0);
    lua_rawget(L, index);
    int value_type = lua_type(L, -1);
    if (!lk_is_data_value_type(value_type)) lk_raise_value_refused(L, value_type, 0);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

// The nested tables of the real table at `real` adopted in key order (a refused store tried
// again). Returns the real table's height.
static int lk_adopt_fields_in_order(lua_State *L, int real, int depth) {
  lua_Integer count = lk_push_sorted_keys(L, real, 1);
  int list = lua_gettop(L);
  int height = 1;
  for (lua_Integer i = 1; i <= count; i++) {
    lua_rawgeti(L, list, i);
    lua_pushvalue(L, -1);
    lua_rawget(L, real);
    int below = lk_adopt_field_at_top(L, real, depth);
    if (below >= height) height = below + 1;
    lua_pop(L, 2);
  }
  lua_pop(L, 1);
  return height;
}

// Replaces the table at `index` by what a real table of the state holds in its place: a
// proxy by its real table, a plain table by the real table it is adopted into.
// The state table whose proxy is at `index` (its real table on top of the stack) as the state
// holds it: replaced by its real table, linked to this proxy, so that a rollback which gives
// back a table this one was stored in finds the proxy it was stored as. It may have no link: a
// proxy kept from before its link was dropped (see lk_sweep_proxies).
static void lk_store_existing(lua_State *L, int index) {
  int linked = lua_rawgetp(L, -1, &lk_proxy_key) == LUA_TTABLE;
  int same = linked && lua_rawequal(L, -1, index);
  lua_pop(L, 1);
  if (!same) {
    if (!linked) lk_list_proxy_made(L, -1);
    lua_pushvalue(L, index);
    lua_rawsetp(L, -2, &lk_proxy_key);
  }
  lua_replace(L, index);
}

// Returns the table's height, as far as the adoption knows it (lk_adopted_height).
static int lk_store_form(lua_State *L, int index, int depth) {
  index = lua_absindex(L, index);
  if (lk_push_real_of(L, index)) {
    if (lk_is_bookkeeping(L, -1)) {
      lk_raise(L, "a table of composable.journal cannot be stored in the state (it is "
                  "bookkeeping kept beside a state, not part of one)");
    }
    lk_info *info = lk_info_of(L);
    info->transaction.adopt_met_state_table = 1;
    // Met again at `depth`: refused as its adoption here would have been.
    int height = lk_adopted_height(L, lua_gettop(L));
    if (height == 0) {
      height = 1;
      if (lk_is_on_adoption_path(info, lua_topointer(L, -1), depth)) {
        info->transaction.adopt_met_cycle = 1;
      }
    }
    if (depth + height - 1 >= LK_STATE_MAX_DEPTH) lk_raise_adopted_too_deep(L);
    lk_store_existing(L, index);
    return height;
  }
  int height = lk_adopt(L, index, depth);
  if (!lk_push_real_of(L, index)) lk_raise(L, "a table could not be stored in the state");
  lua_replace(L, index);
  return height;
}

// Undoes an adoption (rollback): the table gets its contents back, nested real tables as the
// proxies they were stored as, and its old metatable.
static void lk_unadopt(lua_State *L, int table, int metatable) {
  table = lua_absindex(L, table);
  metatable = lua_absindex(L, metatable);
  if (!lk_push_real_of(L, table)) return;
  int real = lua_gettop(L);
  // Converted (its contents moved into the real table) unless it still has the metatable it
  // had: adoption gives it a proxy's once its contents moved, and nothing can fail between.
  int converted = lua_getmetatable(L, table);
  if (converted) {
    converted = !lua_rawequal(L, -1, metatable);
    lua_pop(L, 1);
  }
  if (converted) {  // its contents are in the real table
    lua_pushnil(L);
    while (lk_next_visible(L, real) != 0) {
      if (lua_type(L, -1) == LUA_TTABLE) {
        if (lua_rawgetp(L, -1, &lk_proxy_key) == LUA_TTABLE) lua_replace(L, -2);
        else lua_pop(L, 1);
      }
      lua_pushvalue(L, -2);
      lua_insert(L, -2);
      lua_rawset(L, table);
    }
  }
  lua_pushnil(L);
  lua_rawsetp(L, table, &lk_real_key);
  lua_pushvalue(L, metatable);
  lua_setmetatable(L, table);
  lua_settop(L, real - 1);
}

// MARK: - Undoing

// Undoes the journal's entries newer than `mark` (1), newest first, each dropped once undone
// (if the undo fails, what is left of the journal is what is left to undo).
static int lk_undo_journal(lua_State *L) {
  lk_info *info = lk_info_of(L);
  lua_Integer mark = lua_tointeger(L, 1);
  while (info->journal.length > mark) {
    lua_Integer entry = info->journal.length - 1;
    for (int field = 1; field <= 3; field++) lk_journal_push_field(L, entry, field);
    if (lk_is_adoption_key(L, -2)) {
      lk_unadopt(L, -3, -1);
      lua_pop(L, 3);
    } else if (lk_is_shift_key(L, -2)) {
      lk_undo_shift(L, -3, -1);
      lua_pop(L, 3);
    } else {
      lua_rawset(L, -3);
      lua_pop(L, 1);
    }
    lk_journal_drop(L);
  }
  return 0;
}

// Undoes the entries newer than `mark`: protected, and without the cap, so the undo does not
// fail for want of the memory the undone work used. Returns Lua's status.
static int lk_undo_to(lua_State *L, lua_Integer mark) {
  if (lk_journal_length(L) <= mark) return LUA_OK;
  lua_pushcfunction(L, lk_undo_journal);
  lua_pushinteger(L, mark);
  int status = lk_pcall_uncapped(L, 1, 0);
  if (status != LUA_OK) lua_pop(L, 1);
  return status;
}

void lk_journal_undo_to(lua_State *L, lua_Integer mark) { lk_undo_to(L, mark); }

// MARK: - Writing

// lk_store_form, protected (1: the value), with a slot for the heights the adoption finds.
static int lk_store_form_protected(lua_State *L) {
  lua_settop(L, 1);
  lua_pushnil(L);
  lk_info *info = lk_info_of(L);
  const void *path[LK_ADOPT_MAX_DEPTH];
  info->transaction.adopt_heights = 2;
  info->transaction.adopt_path = path;
  lk_store_form(L, 1, 1);
  info->transaction.adopt_heights = 0;
  info->transaction.adopt_path = NULL;
  lua_settop(L, 1);
  return 1;
}

// The table at `value` in the form the state holds it, made in a protected call, walking each
// table's fields in key order if `in_key_order`: Lua's status, with the form or the error on top
// of the stack.
static int lk_store_form_in(lua_State *L, int value, int in_key_order) {
  lk_info *info = lk_info_of(L);
  info->transaction.adopt_height = 0;
  info->transaction.adopt_met_state_table = 0;
  info->transaction.adopt_met_cycle = 0;
  info->transaction.adopt_in_key_order = in_key_order;
  lua_pushcfunction(L, lk_store_form_protected);
  lua_pushvalue(L, value);
  int status = lua_pcall(L, 1, 1, 0);
  info->transaction.adopt_in_key_order = 0;
  info->transaction.adopt_heights = 0;  // its slot and its path are gone, even after an error
  info->transaction.adopt_path = NULL;
  return status;
}


// Whether the write under way (this metamethod, level 0) was made by the call of the table
// library that is moving elements (level 1: the same thread, the same frame): a mark is for
// that call's writes only.
static int lk_made_by_mover(lua_State *L) {
  const lk_shape_move *move = &lk_info_of(L)->shape.move;
  lua_Debug caller;
  return move->thread == (const void *)L && lua_getstack(L, 1, &caller) &&
         (const void *)caller.i_ci == move->frame;
}

// proxy[key] = value through the journal, with the real table at `real`: the old value is
// journaled, a table value is put in the form the state holds, then the write is applied.
// Every index is absolute.
static void lk_journaled_set(lua_State *L, int proxy, int key, int value, int real) {
  lk_info *info = lk_info_of(L);
  // The table library's mark (below) is taken by this write, whatever it is, before anything
  // can raise: it cannot outlive the write it was made for.
  const void *move_mark = info->shape.move_mark;
  info->shape.move_mark = NULL;
  info->shape.writes += 1;
  if (!info->transaction.open) lk_raise_read_only(L);
  int key_type = lua_type(L, key);
  if (__builtin_expect(key_type != LUA_TSTRING, 0)) {
    // Lua's own words for what no table takes, then what a state does not.
    if (key_type == LUA_TNIL) luaL_error(L, "table index is nil");
    if (key_type == LUA_TNUMBER && lua_tonumber(L, key) != lua_tonumber(L, key)) {
      luaL_error(L, "table index is NaN");
    }
    if (!lk_is_data_key_type(key_type)) lk_raise_key_refused(L, key_type, 1);
  }
  int value_type = lua_type(L, value);
  if (__builtin_expect(!lk_is_data_value_type(value_type), 0)) {
    lk_raise_value_refused(L, value_type, 1);
  }
  if (value_type == LUA_TTABLE) {
    // The table library moving an element within this very array (a sort, an insert, a
    // remove: it says so, write by write): it stays a child of the same table, so its form and
    // the state's shape need no proof.
    if (move_mark != NULL && move_mark == lua_topointer(L, real) && lk_made_by_mover(L) &&
        lk_push_real_of(L, value)) {
      lk_store_existing(L, value);
      lk_leave_flat_reads(L, proxy);  // a table the array held: it has none, but to be sure
      goto journal;
    }
    // All or nothing: a table that cannot be stored (too deep, a metatable, out of memory)
    // is given back as it was before the error goes on, even to a pcall in the reducer that
    // would otherwise keep going with half of it adopted.
    lua_Integer mark = info->journal.length;
    int existing = lk_push_real_of(L, value);
    if (existing) lua_pop(L, 1);
    int status = lk_store_form_in(L, value, 0);
    if (status == LUA_ERRRUN || (status == LUA_OK && info->transaction.adopt_met_cycle)) {
      // Refused, or a table inside itself met: made again walking each table's fields in key
      // order, and that outcome stands. In hash order (each VM's string-hash seed) a table
      // holding a function and a coroutine was refused for either from one run to the next,
      // and `composable replay` said the action's error was another now; and a cycle has no
      // longest path to count, so how deep the adoption went depended on where it met it.
      lua_pop(L, 1);
      lk_undo_to(L, mark);
      status = lk_store_form_in(L, value, 1);
    }
    if (status != LUA_OK) {
      lk_undo_to(L, mark);
      if (status == LUA_ERRRUN && lua_type(L, -1) == LUA_TSTRING) {
        luaL_where(L, 1);  // the Lua line that wrote
        lua_insert(L, -2);
        lua_concat(L, 2);
      }
      lua_error(L);  // the same error (a memory error stays one)
    }
    lua_replace(L, value);
    int height = info->transaction.adopt_met_state_table ? -1 : info->transaction.adopt_height;
    lk_shape_note_store(L, proxy, real, key, value, existing, height);
    lk_leave_flat_reads(L, proxy);
  }
journal:
  // The entry (the hot path of every write).
  lua_pushvalue(L, real);
  lua_pushvalue(L, key);
  lua_pushvalue(L, key);
  lua_rawget(L, real);
  lk_journal_push(L);
  lua_pushvalue(L, key);
  lua_pushvalue(L, value);
  lua_rawset(L, real);
}

static int lk_proxy_newindex(lua_State *L) {
  if (lua_rawgetp(L, 1, &lk_real_key) != LUA_TTABLE) return luaL_error(L, "not a state table");
  lk_journaled_set(L, 1, 2, 3, 4);
  return 0;
}

// A flat-read proxy's __newindex holds its real table as an upvalue: no lookup in the proxy.
static int lk_flat_proxy_newindex(lua_State *L) {
  if (__builtin_expect(lk_is_scalar_write(L), 1)) {
    lk_write_scalar(L, LK_FLAT_REAL);
    return 0;
  }
  // 4 (a metamethod gets exactly three arguments): a stack slot is cheaper to use than an
  // upvalue.
  lua_pushvalue(L, LK_FLAT_REAL);
  lk_journaled_set(L, 1, 2, 3, 4);
  return 0;
}

// Gives the root proxy at `proxy`, over the table at `real`, flat reads if the table is flat.
static void lk_choose_reads(lua_State *L, int proxy, int real) {
  if (lk_is_flat(L, real)) {
    if (lk_reads_of(L, proxy) == lk_reads_view) lk_leave_reads(L, proxy);
    lk_give_flat_reads(L, proxy, real);
  } else {
    lk_leave_reads(L, proxy);
  }
}

void lk_read_flat_in_action(lua_State *L, int index) {
  lk_info *info = lk_info_of(L);
  if (!info->transaction.open || lua_type(L, index) != LUA_TTABLE) return;
  int proxy = lua_absindex(L, index);
  int reads = lk_reads_of(L, proxy);
  // Not one that has flat reads already, nor a table that is no proxy.
  if (reads == lk_reads_none || reads == lk_reads_flat || reads == lk_reads_view) return;
  if (lua_rawgetp(L, proxy, &lk_real_key) != LUA_TTABLE) {
    lua_pop(L, 1);
    return;
  }
  int real = lua_gettop(L);
  if (lk_give_lasting_flat_reads(L, proxy, real) == lk_lasting_over_limit &&
      lk_is_small_and_flat(L, real)) {
    // Listed first: if the list cannot grow, the error comes before the proxy changed.
    lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_flat_key);
    lua_pushvalue(L, proxy);
    lua_rawseti(L, -2, info->transaction.flat_for_action + 1);
    lua_pop(L, 1);
    info->transaction.flat_for_action += 1;
    lk_give_flat_reads(L, proxy, real);
  }
  lua_settop(L, real - 1);
}

static int lk_new_list_protected(lua_State *L) {
  lua_createtable(L, 16, 0);
  lua_rawsetp(L, LUA_REGISTRYINDEX, lua_touserdata(L, 1));
  return 0;
}

// Empties the list under `key` in the registry, `count` entries long. A long one is replaced by
// a new one, so that the collector frees it (emptied, a table keeps the array it grew to: an
// action that gave and took back flat reads a million times would keep its list for good);
// emptied in place if no new one can be made.
static void lk_empty_list(lua_State *L, const char *key, lua_Integer count) {
  if (count > 64) {
    lua_pushcfunction(L, lk_new_list_protected);
    lua_pushlightuserdata(L, (void *)key);
    if (lk_pcall_uncapped(L, 1, 0) == LUA_OK) return;
    lua_pop(L, 1);
  }
  lua_rawgetp(L, LUA_REGISTRYINDEX, key);
  for (lua_Integer i = count; i > 0; i--) {
    lua_pushnil(L);
    lua_rawseti(L, -2, i);
  }
  lua_pop(L, 1);
}

// Takes flat reads (or views) back from the proxies in the list under `key`, `count` long.
static void lk_leave_flat_reads_of_list(lua_State *L, const char *key, lua_Integer count) {
  lua_rawgetp(L, LUA_REGISTRYINDEX, key);
  for (lua_Integer i = count; i > 0; i--) {
    lua_rawgeti(L, -1, i);
    lk_leave_reads(L, -1);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

// The proxies given flat reads for the transaction that ends go back to the shared metatables.
static __attribute__((noinline)) void lk_end_flat_reads(lua_State *L) {
  lk_info *info = lk_info_of(L);
  lk_leave_flat_reads_of_list(L, &lk_flat_key, info->transaction.flat_for_action);
  lk_empty_list(L, &lk_flat_key, info->transaction.flat_for_action);
  info->transaction.flat_for_action = 0;
}

// The lasting flat reads the transaction gave: forgotten (commit) or taken back (a rollback,
// before its undo, which may store a table in one of their tables again).
static __attribute__((noinline)) void lk_end_lasting_given(lua_State *L, int take_back) {
  lk_info *info = lk_info_of(L);
  if (take_back) lk_leave_flat_reads_of_list(L, &lk_given_key, info->transaction.lasting_given);
  lk_empty_list(L, &lk_given_key, info->transaction.lasting_given);
  info->transaction.lasting_given = 0;
}

// MARK: - The functions that see raw tables, for feature code

// next(t [, k]): a proxy's entries are its real table's, nested tables as proxies; a hidden
// key is never returned. A plain table is Lua's own, whatever its keys (a light userdata such as
// json.null included): only a state's tables hold hidden keys, and no light userdata else.
//
// It is every step of `pairs` over a state's table, so it does no more than that step needs:
// the real table stays where it was pushed (3) and the key goes above it.
static int lk_safe_next(lua_State *L) {
  if (lua_type(L, 1) != LUA_TTABLE) luaL_checktype(L, 1, LUA_TTABLE);  // Lua's own error
  lua_settop(L, 2);
  if (lua_rawgetp(L, 1, &lk_real_key) == LUA_TTABLE) {  // a proxy: 3 its real table
    if (lua_type(L, 2) == LUA_TLIGHTUSERDATA) return luaL_argerror(L, 2, "invalid key to 'next'");
    lua_pushvalue(L, 2);
    if (lk_next_visible(L, 3) == 0) {
      lua_pushnil(L);
      return 1;
    }
    // 4 the key, 5 the value: a table's kept proxy goes above them and the key under it.
    if (lua_type(L, 5) == LUA_TTABLE && lua_rawgetp(L, 5, &lk_proxy_key) == LUA_TTABLE) {
      lua_copy(L, 4, 5);
      return 2;
    }
    lua_settop(L, 5);
    lk_wrap_top(L);
    return 2;
  }
  lua_settop(L, 2);
  if (lk_next_visible(L, 1) == 0) {
    lua_pushnil(L);
    return 1;
  }
  return 2;
}

// The rest of pairs after a __pairs metamethod that yielded.
static int lk_pairs_continued(lua_State *L, int status, lua_KContext context) {
  (void)L;
  (void)status;
  (void)context;
  return 3;
}

// pairs(t): `next, t, nil` for a state's table (as for any plain table: `pairs(state) ==
// next`), else __pairs when there is one (which may yield), else the safe next: Lua's own
// pairs would hand out Lua's own next.
static int lk_safe_pairs(lua_State *L) {
  luaL_checkany(L, 1);
  if (lua_type(L, 1) == LUA_TTABLE && lua_rawgetp(L, 1, &lk_real_key) == LUA_TTABLE) {
    lua_pop(L, 1);
    lua_pushcfunction(L, lk_safe_next);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
  }
  lua_settop(L, 1);
  if (luaL_getmetafield(L, 1, "__pairs") == LUA_TNIL) {
    lua_pushcfunction(L, lk_safe_next);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
  } else {
    lua_pushvalue(L, 1);
    lua_callk(L, 1, 3, 0, lk_pairs_continued);
  }
  return 3;
}

// One step of ipairs over a plain table (or anything else): Lua's own, `t[i]` as it reads.
static int lk_ipairs_step(lua_State *L) {
  int is_integer;
  lua_Integer i = lua_tointegerx(L, 2, &is_integer);
  if (!is_integer) i = luaL_checkinteger(L, 2);  // Lua's own error, or a float that is one
  i = (lua_Integer)((lua_Unsigned)i + 1u);
  lua_pushinteger(L, i);
  return lua_geti(L, 1, i) == LUA_TNIL ? 1 : 2;
}

// One step of ipairs over a state's table: its real table's element read in place, a table as
// its proxy, as `__index` would give it, without a call through the metatable. Every step of
// a loop over a state's list: the stack is laid out so that the results need no moving.
static int lk_proxy_ipairs_step(lua_State *L) {
  int is_integer;
  lua_Integer i = lua_tointegerx(L, 2, &is_integer);
  if (!is_integer) i = luaL_checkinteger(L, 2);  // Lua's own error, or a float that is one
  i = (lua_Integer)((lua_Unsigned)i + 1u);
  if (lua_gettop(L) != 2) lua_settop(L, 2);
  // Called by hand with anything but a proxy: as Lua reads it (and raises as Lua does).
  if (lua_type(L, 1) != LUA_TTABLE || lua_rawgetp(L, 1, &lk_real_key) != LUA_TTABLE) {
    lua_settop(L, 2);
    lua_pushinteger(L, i);
    return lua_geti(L, 1, i) == LUA_TNIL ? 1 : 2;
  }
  lua_pushinteger(L, i);  // 4 (3 the real table: never handed out)
  int type = lua_rawgeti(L, 3, i);  // 5
  if (type == LUA_TNIL) return 1;
  if (type == LUA_TTABLE) {
    if (lua_rawgetp(L, 5, &lk_proxy_key) == LUA_TTABLE) {  // its kept proxy: 6
      lua_copy(L, 4, 5);
      return 2;
    }
    lua_pop(L, 1);
    lk_wrap_top(L);
  }
  return 2;
}

// Whether the list at `real` is short enough for its view to hold it: under half a view's
// entries, so that a view written over and over does not become full for good
// (lk_view_has_room) and read most of it through C.
static int lk_is_short_list(lua_State *L, int real) {
  return lua_rawlen(L, real) <= (lua_Unsigned)lk_view_entries / 2;
}

// A loop over the proxy at `proxy` (its real table at `real`) reads its elements, so it counts
// as a read, as the proxy's __index would count it: a list looped over in two transactions
// gets a view (or flat reads), as one indexed would. Returns whether reads through its
// metatable are now the VM's lookups (a view not past its entries, or flat reads): then each
// step is Lua's own `t[i]`, which finds the element's proxy in the view, where the real table's
// step finds the real table and the element's proxy by two hidden-key lookups.
static int lk_loop_reads_through_view(lua_State *L, int proxy, int real) {
  int reads = lk_reads_of(L, proxy);
  if (reads == lk_reads_fresh) {
    lk_set_shared_metatable(L, proxy, lk_is_small_and_flat(L, real) ? &lk_warm_metatable_key
                                                                     : &lk_nested_metatable_key);
  } else if (reads == lk_reads_warm) {
    lk_give_lasting_flat_reads(L, proxy, real);
  } else if (reads == lk_reads_nested) {
    lk_give_lasting_view(L, proxy, real);
  } else {
    return reads == lk_reads_flat || (reads == lk_reads_view && lk_is_short_list(L, real));
  }
  reads = lk_reads_of(L, proxy);
  return reads == lk_reads_flat || (reads == lk_reads_view && lk_is_short_list(L, real));
}

// ipairs(t): for a state's table, steps through its view (Lua's own step) or, without one,
// steps that read its real table in place.
static int lk_safe_ipairs(lua_State *L) {
  luaL_checkany(L, 1);
  // One argument from here: what follows finds its real table at 2 (`ipairs(t, 0)` had the 0
  // taken for it, a crash).
  lua_settop(L, 1);
  int proxy = lua_type(L, 1) == LUA_TTABLE && lua_rawgetp(L, 1, &lk_real_key) == LUA_TTABLE;
  if (proxy && lk_loop_reads_through_view(L, 1, 2)) proxy = 0;
  lua_settop(L, 1);
  lua_pushcfunction(L, proxy ? lk_proxy_ipairs_step : lk_ipairs_step);
  lua_pushvalue(L, 1);
  lua_pushinteger(L, 0);
  return 3;
}

static int lk_safe_rawget(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checkany(L, 2);
  lua_settop(L, 2);
  int proxy = lk_push_real_of(L, 1);
  if (proxy) {
    if (lua_type(L, 2) == LUA_TLIGHTUSERDATA) {  // no such key in a state but hidden ones
      lua_pushnil(L);
      return 1;
    }
    lua_replace(L, 1);
  }
  lua_rawget(L, 1);
  if (proxy) lk_wrap_top(L);
  return 1;
}

// rawset(t, k, v): on a state table, a journaled write like any other.
static int lk_safe_rawset(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checkany(L, 2);
  luaL_checkany(L, 3);
  lua_settop(L, 3);
  if (lk_push_real_of(L, 1)) {  // 4
    // Lua's words, and as Lua's rawset says them: with no place (lk_journaled_set's are a
    // metamethod's, which an assignment calls, and there Lua gives the line).
    int key_type = lua_type(L, 2);
    if (key_type == LUA_TNIL) return lk_raise(L, "table index is nil");
    if (key_type == LUA_TNUMBER && lua_tonumber(L, 2) != lua_tonumber(L, 2)) {
      return lk_raise(L, "table index is NaN");
    }
    lk_journaled_set(L, 1, 2, 3, 4);
    lk_view_forget(L, 1, 2);  // written behind its view, if it has one
  } else {
    lua_pushvalue(L, 2);
    lua_pushvalue(L, 3);
    lua_rawset(L, 1);
  }
  lua_settop(L, 1);
  return 1;
}

static int lk_safe_rawlen(lua_State *L) {
  int type = lua_type(L, 1);
  luaL_argexpected(L, type == LUA_TTABLE || type == LUA_TSTRING, 1, "table or string");
  if (lk_push_real_of(L, 1)) lua_replace(L, 1);
  lua_pushinteger(L, (lua_Integer)lua_rawlen(L, 1));
  return 1;
}

// setmetatable(t, mt), refusing a metatable with __gc: a finalizer runs when the collector
// decides, with hooks off, outside every call and so outside every budget.
static int lk_safe_setmetatable(lua_State *L) {
  int type = lua_type(L, 2);
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_argexpected(L, type == LUA_TNIL || type == LUA_TTABLE, 2, "nil or table");
  if (lua_rawgetp(L, 1, &lk_real_key) == LUA_TTABLE) {
    // A state table has none (getmetatable says nil): setting none again is Lua's no-op.
    if (type == LUA_TNIL) {
      lua_settop(L, 1);
      return 1;
    }
    return luaL_error(L, "a state table cannot have a metatable (state is plain data: tables, "
                         "strings, numbers and booleans)");
  }
  lua_pop(L, 1);
  if (luaL_getmetafield(L, 1, "__metatable") != LUA_TNIL) {
    return luaL_error(L, "cannot change a protected metatable");
  }
  if (type == LUA_TTABLE) {
    lua_pushliteral(L, "__gc");
    int has_gc = lua_rawget(L, 2) != LUA_TNIL;
    lua_pop(L, 1);
    if (has_gc) {
      return luaL_error(L, "setmetatable: __gc is not allowed (a finalizer would run outside "
                           "the instruction budget); release resources explicitly instead");
    }
    // A state table is a proxy, empty to the VM's raw reads of metamethods: as a metatable it
    // would have none of the fields it shows.
    int is_state_table = lua_rawgetp(L, 2, &lk_real_key) == LUA_TTABLE;
    lua_pop(L, 1);
    if (is_state_table) {
      return luaL_error(L, "a state table cannot be a metatable (state is plain data; use a "
                           "table of its own, with a copy of the fields)");
    }
  }
  lua_settop(L, 2);
  if (type == LUA_TTABLE) {  // known as a metatable from now on: never adopted into a state
    lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_metatables_key);
    lua_pushvalue(L, 2);
    lua_pushboolean(L, 1);
    lua_rawset(L, -3);
    lua_pop(L, 1);
    lk_info_of(L)->transaction.metatables_set = 1;
  }
  lua_setmetatable(L, 1);
  return 1;
}

// getmetatable(v): a state table has none, as the plain table it stands for (its proxy's is
// the host's); anything else as Lua answers.
static int lk_safe_getmetatable(lua_State *L) {
  luaL_checkany(L, 1);
  if (lua_type(L, 1) == LUA_TTABLE && lua_rawgetp(L, 1, &lk_real_key) == LUA_TTABLE) {
    lua_pushnil(L);
    return 1;
  }
  lua_settop(L, 1);
  if (!lua_getmetatable(L, 1)) {
    lua_pushnil(L);
    return 1;
  }
  luaL_getmetafield(L, 1, "__metatable");  // its protection, if it has one
  return 1;
}

// MARK: - Opening

// Makes the proxies' four shared metatables (the fresh one at `fresh`, made first, is what
// their metamethods give new proxies), alike but for __index.
static void lk_open_shared_metatables(lua_State *L) {
  static const struct {
    const char *key;
    lua_CFunction index;
  } shared[] = {
      {&lk_fresh_metatable_key, lk_fresh_proxy_index},
      {&lk_warm_metatable_key, lk_warm_proxy_index},
      {&lk_nested_metatable_key, lk_nested_proxy_index},
      {&lk_metatable_key, lk_proxy_index},
  };
  lua_createtable(L, 0, 5);
  int fresh = lua_gettop(L);
  const void **addresses[] = {
      &lk_info_of(L)->transaction.fresh_metatable,
      &lk_info_of(L)->transaction.warm_metatable,
      &lk_info_of(L)->transaction.nested_metatable,
      &lk_info_of(L)->transaction.plain_metatable,
  };
  for (int i = 0; i < 4; i++) {
    if (i == 0) lua_pushvalue(L, fresh);
    else lua_createtable(L, 0, 5);
    int metatable = lua_gettop(L);
    lua_pushvalue(L, fresh);
    lua_pushcclosure(L, shared[i].index, 1);
    lua_setfield(L, metatable, "__index");
    lua_pushcfunction(L, lk_proxy_newindex);
    lua_setfield(L, metatable, "__newindex");
    lua_pushcfunction(L, lk_proxy_len);
    lua_setfield(L, metatable, "__len");
    lua_pushcfunction(L, lk_proxy_pairs);
    lua_setfield(L, metatable, "__pairs");
    lua_pushliteral(L, "state");  // getmetatable/setmetatable cannot reach it
    lua_setfield(L, metatable, "__metatable");
    *addresses[i] = lua_topointer(L, metatable);
    lua_rawsetp(L, LUA_REGISTRYINDEX, shared[i].key);
  }
  lua_settop(L, fresh - 1);
}

void lk_transactions_open(lua_State *L) {
  lk_journal_open(L);
  lk_open_shared_metatables(L);
  lua_createtable(L, 16, 0);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &lk_made_key);
  lua_createtable(L, 16, 0);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &lk_flat_key);
  lua_createtable(L, 16, 0);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &lk_given_key);
  lk_push_weak_keyed_table(L);  // proxy -> true
  lua_rawsetp(L, LUA_REGISTRYINDEX, &lk_lasting_key);
  lk_push_weak_keyed_table(L);  // metatable -> true
  lua_rawsetp(L, LUA_REGISTRYINDEX, &lk_metatables_key);
  lua_pushliteral(L, "");
  if (lua_getmetatable(L, -1)) {  // the string library is open (lk_open_libraries)
    lk_info_of(L)->transaction.string_metatable = lua_topointer(L, -1);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  lua_newtable(L);  // the canary's holder, its value held weakly
  lua_createtable(L, 0, 1);
  lua_pushliteral(L, "v");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &lk_canary_key);
  lua_newtable(L);  // real -> proxy, the proxy held weakly
  lua_createtable(L, 0, 1);
  lua_pushliteral(L, "v");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &lk_kept_key);
  static const luaL_Reg safe[] = {
      {"next", lk_safe_next},
      {"pairs", lk_safe_pairs},
      {"ipairs", lk_safe_ipairs},
      {"rawget", lk_safe_rawget},
      {"rawset", lk_safe_rawset},
      {"rawlen", lk_safe_rawlen},
      {"setmetatable", lk_safe_setmetatable},
      {"getmetatable", lk_safe_getmetatable},
      {NULL, NULL},
  };
  lua_pushglobaltable(L);
  luaL_setfuncs(L, safe, 0);
  lua_pop(L, 1);
}

// MARK: - The host's side

void lk_set_array_marker(lua_State *L, int index) {
  lua_pushvalue(L, index);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &lk_marker_key);
}

int lk_has_array_marker(lua_State *L, int index) {
  if (!lua_getmetatable(L, index)) return 0;
  lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_marker_key);
  int marked = lua_rawequal(L, -1, -2);
  lua_pop(L, 2);
  return marked;
}

void lk_mark_array(lua_State *L, int index) {
  index = lua_absindex(L, index);
  lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_marker_key);
  lua_setmetatable(L, index);
}

void lk_push_transactional_proxy(lua_State *L, int index) {
  index = lua_absindex(L, index);
  lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_fresh_metatable_key);
  lk_push_proxy_of(L, index, lua_gettop(L));
  lua_replace(L, -2);
  lk_choose_reads(L, -1, index);
}

// Registry: the real tables of journaled tables, as weak keys. Bookkeeping beside a state (which
// for_each elements have effects running, say) is journaled so that it rolls back with the
// state, but it is not the state: what changed in the state (a save's question) skips it, and
// it cannot be stored in the state, where a change to it would then be skipped too.
static const char lk_bookkeeping_key = 0;

// Pushes the set of bookkeeping tables, made at its first use.
static void lk_push_bookkeeping(lua_State *L) {
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_bookkeeping_key) == LUA_TTABLE) return;
  lua_pop(L, 1);
  lk_push_weak_keyed_table(L);
  lua_pushvalue(L, -1);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &lk_bookkeeping_key);
}

int lk_is_bookkeeping(lua_State *L, int index) {
  index = lua_absindex(L, index);
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_bookkeeping_key) != LUA_TTABLE) {
    lua_pop(L, 1);
    return 0;
  }
  lua_pushvalue(L, index);
  int is = lua_rawget(L, -2) != LUA_TNIL;
  lua_pop(L, 2);
  return is;
}

void lk_push_journaled_table(lua_State *L) {
  lua_newtable(L);
  lk_push_bookkeeping(L);
  lua_pushvalue(L, -2);
  lua_pushboolean(L, 1);
  lua_rawset(L, -3);
  lua_pop(L, 1);
  lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_fresh_metatable_key);
  lk_push_proxy_of(L, -2, -1);
  lua_replace(L, -3);
  lua_pop(L, 1);
}

static int lk_journaled_table_function(lua_State *L) {
  lk_push_journaled_table(L);
  return 1;
}

void lk_push_journaled_table_function(lua_State *L) {
  lua_pushcfunction(L, lk_journaled_table_function);
}


int lk_is_adoption_key(lua_State *L, int index) {
  return lua_type(L, index) == LUA_TLIGHTUSERDATA && lua_touserdata(L, index) == &lk_adopted_key;
}

// The body of lk_state_write, protected: 1 proxy, 2 key (nil: the whole state), 3 value.
static int lk_state_write_protected(lua_State *L) {
  if (lua_rawgetp(L, 1, &lk_real_key) != LUA_TTABLE) return luaL_error(L, "not a state table");
  int real = 4;
  if (!lua_isnil(L, 2)) {
    lua_pushvalue(L, 2);
    lua_pushvalue(L, 3);
    lua_rawset(L, real);
  } else {
    luaL_checktype(L, 3, LUA_TTABLE);
    lua_pushnil(L);
    while (lk_next_visible(L, real) != 0) {
      lua_pop(L, 1);
      lua_pushvalue(L, -1);
      lua_pushnil(L);
      lua_rawset(L, real);  // an existing key: allowed while traversing
    }
    lua_pushnil(L);
    while (lua_next(L, 3) != 0) {
      lua_pushvalue(L, -2);
      lua_insert(L, -2);
      lua_rawset(L, real);
    }
  }
  // Its flat reads or view go (it was written behind them); tables below it are the host's new
  // ones (no proxy yet) or no longer in it, so no other view shows what changed.
  lk_choose_reads(L, 1, real);
  return 0;
}

int lk_state_write(lua_State *L, int proxy, int key, int value) {
  lk_shape_forget(L);
  proxy = lua_absindex(L, proxy);
  value = lua_absindex(L, value);
  key = key == 0 ? 0 : lua_absindex(L, key);
  lua_pushcfunction(L, lk_state_write_protected);
  lua_pushvalue(L, proxy);
  if (key == 0) lua_pushnil(L);
  else lua_pushvalue(L, key);
  lua_pushvalue(L, value);
  return lk_pcall_uncapped(L, 3, 0);  // the host's own write
}

// MARK: - Transactions

// Replaces the table of proxies kept after sweeps by a new one holding what is still in it
// (protected): the collector empties a weak table but leaves it as large as it grew.
static int lk_compact_kept_protected(lua_State *L) {
  lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_kept_key);
  int old = lua_gettop(L);
  lua_newtable(L);
  lua_getmetatable(L, old);
  lua_setmetatable(L, -2);
  lua_pushnil(L);
  while (lua_next(L, old) != 0) {
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_rawset(L, -4);
  }
  lua_rawsetp(L, LUA_REGISTRYINDEX, &lk_kept_key);
  return 0;
}

static void lk_compact_kept(lua_State *L) {
  lua_pushcfunction(L, lk_compact_kept_protected);
  if (lk_pcall_uncapped(L, 0, 0) != LUA_OK) lua_pop(L, 1);  // out of memory: it stays as it is
}

int lk_gc_collect(lua_State *L) {
  int result = lua_gc(L, LUA_GCCOLLECT);
  lk_info *info = lk_info_of(L);
  // A sweep kept proxies since: the old table goes in a second pass.
  if (info->transaction.kept_grew) {
    info->transaction.kept_grew = 0;
    lk_compact_kept(L);
    result = lua_gc(L, LUA_GCCOLLECT);
  }
  return result;
}

// After a sweep (see lk_sweep_proxies), protected: the listed tables forget their proxies
// (kept weakly, for as long as Lua code holds them), and the list, as long as the sweep, is
// replaced by a new one.
static int lk_drop_proxies_made(lua_State *L) {
  lk_info *info = lk_info_of(L);
  lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_made_key);
  lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_kept_key);
  for (lua_Integer i = 1; i <= info->transaction.proxies_made; i++) {
    if (lua_rawgeti(L, -2, i) == LUA_TTABLE) {
      lua_pushvalue(L, -1);
      if (lua_rawgetp(L, -1, &lk_proxy_key) == LUA_TTABLE) {
        lk_leave_reads(L, -1);  // a sweep leaves no memory behind
        lua_rawset(L, -4);
      } else {
        lua_pop(L, 2);
      }
      lua_pushnil(L);
      lua_rawsetp(L, -2, &lk_proxy_key);  // an existing key: allocates nothing
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  info->transaction.kept_grew = 1;
  lua_createtable(L, 16, 0);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &lk_made_key);
  return 0;
}

// The list of the transaction that ends, emptied; after a sweep, its proxies dropped. Out of
// line: most actions give no table a proxy.
static __attribute__((noinline)) void lk_forget_proxies_made(lua_State *L) {
  lk_info *info = lk_info_of(L);
  if (info->transaction.proxies_made > lk_sweep_proxies) {
    lk_compact_kept(L);  // what the last sweep kept and the collector took since, made small
    lua_pushcfunction(L, lk_drop_proxies_made);
    if (lk_pcall_uncapped(L, 0, 0) == LUA_OK) {
      info->transaction.proxies_made = 0;
      return;
    }
    lua_pop(L, 1);  // the proxies stay; the list is emptied below
  }
  lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_made_key);
  for (lua_Integer i = info->transaction.proxies_made; i > 0; i--) {
    lua_pushnil(L);
    lua_rawseti(L, -2, i);
  }
  lua_pop(L, 1);
  info->transaction.proxies_made = 0;
}

static inline void lk_end_transaction(lua_State *L) {
  lk_info *info = lk_info_of(L);
  info->transaction.open = 0;
  info->transaction.shift_entries = 0;  // the journal was forgotten
  if (info->transaction.flat_for_action != 0) lk_end_flat_reads(L);
  if (info->transaction.lasting_given != 0) lk_end_lasting_given(L, 0);
  if (info->transaction.proxies_made != 0) lk_forget_proxies_made(L);
}

void lk_transaction_begin(lua_State *L, int state_slot) {
  lk_journal_forget(L);
  lk_info *info = lk_info_of(L);
  info->transaction.open = 1;
  info->transaction.serial += 1;
  info->transaction.shift_entries = 0;
  lk_shape_begin(&info->shape, state_slot);
}

void lk_transaction_commit(lua_State *L) {
  lk_journal_forget(L);
  lk_end_transaction(L);
}

int lk_transaction_is_open(lua_State *L) { return lk_info_of(L)->transaction.open; }

int lk_transaction_close_writes(lua_State *L) {
  lk_info *info = lk_info_of(L);
  int was_open = info->transaction.open;
  info->transaction.open = 0;
  return was_open;
}

void lk_transaction_reopen_writes(lua_State *L, int was_open) {
  lk_info_of(L)->transaction.open = was_open;
}

int lk_transaction_rollback(lua_State *L) {
  lk_info *info = lk_info_of(L);
  info->transaction.open = 0;
  lk_shape_rolled_back(L);
  // Flat reads end before the undo: undoing an adoption tells a table that became a proxy by
  // its metatable being a shared one, and the undo may store a table in a flat table again.
  if (info->transaction.flat_for_action != 0) lk_end_flat_reads(L);
  if (info->transaction.lasting_given != 0) lk_end_lasting_given(L, 1);
  if (info->transaction.views != 0) lk_leave_views(L);  // the undo writes behind them
  lua_Integer length = lk_journal_length(L);
  int status = lk_undo_to(L, 0);
  // The undo emptied the journal entry by entry; a journal that was large keeps the stacks it
  // grew to (Lua shrinks them only at a collection), and the next action would begin with them
  // counted against the memory limit: replaced, as a commit replaces it.
  if (lk_journal_length(L) == 0 && length > LK_JOURNAL_REPLACED_ABOVE) {
    lk_journal_forget_large(L);
  } else {
    lk_journal_forget(L);
  }
  lk_end_transaction(L);
  return status;
}

int lk_transaction_wrote(lua_State *L) { return lk_journal_length(L) > 0; }
