// Transactions over a table, in C because they sit on the path of every read and write a
// reducer makes (the same proxies in Lua cost five times the reducer itself).
//
// The reducer gets a proxy instead of the state: an empty table whose metamethods read
// through to the real table (handing out proxies of nested tables, made once and kept in the
// table they stand for) and apply every write at once while journaling (table, key, old
// value). After a failed action the host rolls the journal back, newest first; a good action's
// journal is forgotten when the next one starts. The cost is what the reducer touches, never
// the size of the state.
//
// `rawget`, `rawset` and `next` on a proxy see the proxy, not the data. `pairs`, `ipairs`, `#`
// and the `table` library go through metamethods and work.
#include "LuaSupport.h"
#include "LuaSupportState.h"

static const char lk_real_key = 0;      // proxy[&lk_real_key]: the table the proxy stands for
static const char lk_journal_key = 0;   // registry: the journal, three slots an entry
static const char lk_metatable_key = 0; // registry: the proxies' metatable

// table[&lk_proxy_key]: the table's proxy, once a reducer has reached the table. Keeping it in
// the table itself, rather than in a weak table from tables to proxies, makes finding it a
// lookup in a table just read anyway; a weak table of every proxy made would be cleared by
// the collector on every cycle, a cost that grows with the state. Readers skip the key
// (`lk_next`); Lua code cannot make a light userdata, so it cannot name it.
static const char lk_proxy_key = 0;

// The metamethods' upvalues.
#define LK_JOURNAL lua_upvalueindex(1)
#define LK_METATABLE lua_upvalueindex(2)
#define LK_NEXT lua_upvalueindex(3)

// Past this depth, storing a plain table tracks the tables it has seen, to stop at a cycle.
static const int lk_unwrap_untracked_depth = 16;

// Pushes the proxy of the table at `index`, the one it keeps or a new one. A table keeps its
// proxy as long as it lives, so a nested table is wrapped once, not once per action.
static void lk_push_proxy_of(lua_State *L, int index, int metatable) {
  index = lua_absindex(L, index);
  if (lua_rawgetp(L, index, &lk_proxy_key) == LUA_TTABLE) return;
  lua_pop(L, 1);
  lua_createtable(L, 0, 1);
  lua_pushvalue(L, index);
  lua_rawsetp(L, -2, &lk_real_key);
  lua_pushvalue(L, metatable);
  lua_setmetatable(L, -2);
  lua_pushvalue(L, -1);
  lua_rawsetp(L, index, &lk_proxy_key);
}

// __index(proxy, key): the real table's value, a nested table as its proxy.
static int lk_proxy_index(lua_State *L) {
  lua_rawgetp(L, 1, &lk_real_key);
  lua_pushvalue(L, 2);
  if (lua_gettable(L, 3) == LUA_TTABLE) lk_push_proxy_of(L, -1, LK_METATABLE);
  return 1;
}

int lk_next(lua_State *L, int index) {
  while (lua_next(L, index) != 0) {
    if (lua_type(L, -2) != LUA_TLIGHTUSERDATA || lua_touserdata(L, -2) != &lk_proxy_key) return 1;
    lua_pop(L, 1);
  }
  return 0;
}

// Replaces the table at `index` by what the state must hold: a proxy by its table, and in a
// plain table every proxy inside by its table. `seen` is 0 until the depth calls for one.
static void lk_unwrap(lua_State *L, int index, int depth, int seen) {
  if (lua_rawgetp(L, index, &lk_real_key) == LUA_TTABLE) {
    lua_replace(L, index);
    return;
  }
  lua_pop(L, 1);
  int own_seen = 0;
  if (depth >= lk_unwrap_untracked_depth) {
    if (seen == 0) {
      lua_newtable(L);
      seen = lua_gettop(L);
      own_seen = 1;
    }
    lua_pushvalue(L, index);
    if (lua_rawget(L, seen) != LUA_TNIL) {
      lua_pop(L, 1);
      return;
    }
    lua_pop(L, 1);
    lua_pushvalue(L, index);
    lua_pushboolean(L, 1);
    lua_rawset(L, seen);
  }
  luaL_checkstack(L, 4, "a value stored in the state is nested too deeply");
  lua_pushnil(L);
  while (lk_next(L, index) != 0) {
    if (lua_type(L, -1) == LUA_TTABLE) {
      int value = lua_gettop(L);
      lua_pushvalue(L, value);
      lk_unwrap(L, value + 1, depth + 1, seen);
      if (!lua_rawequal(L, value, value + 1)) {  // a proxy inside: store its table instead
        lua_pushvalue(L, value - 1);
        lua_pushvalue(L, value + 1);
        lua_rawset(L, index);  // an existing key: allowed while traversing
      }
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  if (own_seen) lua_remove(L, seen);
}

// A flat table (no table among its values) can be read without a metamethod: its proxy gets a
// metatable of its own whose __index is the table itself, so a read is a lookup the VM does.
// Only a state's root gets this (one metatable per feature, not per table reached): a
// feature whose state is flat reads it at the speed of a plain table. The root goes back to
// the shared metatable as soon as a table is stored in it, and never returns: a read must
// hand out a nested table's proxy, which only the C __index does.
static void lk_leave_flat_reads(lua_State *L, int proxy, int shared) {
  proxy = lua_absindex(L, proxy);
  shared = lua_absindex(L, shared);
  if (!lua_getmetatable(L, proxy)) return;
  int flat = !lua_rawequal(L, -1, shared);
  lua_pop(L, 1);
  if (!flat) return;
  lua_pushvalue(L, shared);
  lua_setmetatable(L, proxy);
}

static int lk_flat_proxy_newindex(lua_State *L);

// Whether the table at `index` holds no table.
static int lk_is_flat(lua_State *L, int index) {
  index = lua_absindex(L, index);
  lua_pushnil(L);
  while (lk_next(L, index) != 0) {
    if (lua_type(L, -1) == LUA_TTABLE) {
      lua_pop(L, 2);
      return 0;
    }
    lua_pop(L, 1);
  }
  return 1;
}

// Gives the root proxy at `proxy`, over the table at `real`, flat reads if the table is flat.
static void lk_choose_reads(lua_State *L, int proxy, int real) {
  proxy = lua_absindex(L, proxy);
  real = lua_absindex(L, real);
  lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_metatable_key);
  int shared = lua_gettop(L);
  if (!lk_is_flat(L, real)) {
    lk_leave_flat_reads(L, proxy, shared);
    lua_pop(L, 1);
    return;
  }
  lua_createtable(L, 0, 5);
  lua_pushnil(L);
  while (lua_next(L, shared) != 0) {  // the shared metamethods, then __index replaced
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_rawset(L, -4);
  }
  lua_pushvalue(L, real);
  lua_setfield(L, -2, "__index");
  lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_journal_key);
  lua_pushvalue(L, shared);
  lua_pushvalue(L, real);
  lua_pushcclosure(L, lk_flat_proxy_newindex, 3);
  lua_setfield(L, -2, "__newindex");
  lua_setmetatable(L, proxy);
  lua_pop(L, 1);
}

// The body of __newindex(proxy, key, value), with the real table pushed at 4: journal the old
// value, then write to the real table.
static int lk_journal_and_set(lua_State *L) {
  int key_type = lua_type(L, 2);
  if (key_type == LUA_TNIL) return luaL_error(L, "index is nil");
  if (key_type == LUA_TNUMBER && lua_tonumber(L, 2) != lua_tonumber(L, 2)) {
    return luaL_error(L, "index is NaN");
  }
  lk_info *info = lk_info_of(L);
  lua_Integer slot = info->journal_length * 3;
  lua_pushvalue(L, 4);
  lua_rawseti(L, LK_JOURNAL, slot + 1);
  lua_pushvalue(L, 2);
  lua_rawseti(L, LK_JOURNAL, slot + 2);
  lua_pushvalue(L, 2);
  lua_rawget(L, 4);
  lua_rawseti(L, LK_JOURNAL, slot + 3);
  info->journal_length += 1;
  if (lua_type(L, 3) == LUA_TTABLE) {
    lk_unwrap(L, 3, 0, 0);
    lk_leave_flat_reads(L, 1, LK_METATABLE);
  }
  lua_settop(L, 4);
  lua_replace(L, 1);  // real, key, value: the three that rawset wants, in place
  lua_rawset(L, 1);
  return 0;
}

static int lk_proxy_newindex(lua_State *L) {
  lua_rawgetp(L, 1, &lk_real_key);  // 4
  return lk_journal_and_set(L);
}

// A flat root's __newindex holds its real table as a third upvalue: no lookup in the proxy.
static int lk_flat_proxy_newindex(lua_State *L) {
  lua_pushvalue(L, lua_upvalueindex(3));  // 4
  return lk_journal_and_set(L);
}

static int lk_proxy_len(lua_State *L) {
  lua_rawgetp(L, 1, &lk_real_key);
  lua_pushinteger(L, luaL_len(L, -1));
  return 1;
}

// The iterator `pairs` returns: the real table's next, nested tables as proxies.
static int lk_proxy_next(lua_State *L) {
  lua_rawgetp(L, 1, &lk_real_key);  // 3
  lua_settop(L, 3);
  lua_pushvalue(L, 2);
  if (lk_next(L, 3) == 0) return 0;
  if (lua_type(L, -1) == LUA_TTABLE) {
    lk_push_proxy_of(L, -1, LK_METATABLE);
    lua_replace(L, -2);
  }
  return 2;
}

static int lk_proxy_pairs(lua_State *L) {
  lua_pushvalue(L, LK_NEXT);
  lua_pushvalue(L, 1);
  lua_pushnil(L);
  return 3;
}

// Pushes the metamethods' shared upvalues.
static void lk_push_upvalues(lua_State *L, int journal, int metatable) {
  lua_pushvalue(L, journal);
  lua_pushvalue(L, metatable);
}

static void lk_transactions_open(lua_State *L) {
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_metatable_key) == LUA_TTABLE) {
    lua_pop(L, 1);
    return;
  }
  lua_pop(L, 1);
  lua_createtable(L, 48, 0);  // journal
  int journal = lua_gettop(L);
  lua_createtable(L, 0, 5);  // the proxies' metatable
  int metatable = lua_gettop(L);
  lk_push_upvalues(L, journal, metatable);
  lua_pushcclosure(L, lk_proxy_index, 2);
  lua_setfield(L, metatable, "__index");
  lk_push_upvalues(L, journal, metatable);
  lua_pushcclosure(L, lk_proxy_newindex, 2);
  lua_setfield(L, metatable, "__newindex");
  lua_pushcfunction(L, lk_proxy_len);
  lua_setfield(L, metatable, "__len");
  lk_push_upvalues(L, journal, metatable);
  lk_push_upvalues(L, journal, metatable);
  lua_pushcclosure(L, lk_proxy_next, 2);
  lua_pushcclosure(L, lk_proxy_pairs, 3);
  lua_setfield(L, metatable, "__pairs");
  lua_pushliteral(L, "composable.state");  // getmetatable/setmetatable cannot reach it
  lua_setfield(L, metatable, "__metatable");
  lua_pushvalue(L, journal);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &lk_journal_key);
  lua_pushvalue(L, metatable);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &lk_metatable_key);
  lua_pop(L, 2);
}

void lk_push_transactional_proxy(lua_State *L, int index) {
  index = lua_absindex(L, index);
  lk_transactions_open(L);
  lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_metatable_key);
  lk_push_proxy_of(L, index, lua_gettop(L));
  lua_replace(L, -2);
  lk_choose_reads(L, -1, index);
}

void lk_refresh_transactional_proxy(lua_State *L, int proxy) {
  proxy = lua_absindex(L, proxy);
  if (lua_rawgetp(L, proxy, &lk_real_key) != LUA_TTABLE) {
    lua_pop(L, 1);
    return;
  }
  lk_choose_reads(L, proxy, -1);
  lua_pop(L, 1);
}

int lk_push_proxied_table(lua_State *L, int index) {
  if (lua_type(L, index) != LUA_TTABLE || !lua_getmetatable(L, index)) return 0;
  lua_pop(L, 1);
  if (lua_rawgetp(L, index, &lk_real_key) == LUA_TTABLE) return 1;
  lua_pop(L, 1);
  return 0;
}

// A committed journal's first entries are left for the next writes to overwrite, rather than
// cleared on every action: they keep at most this many old values from being collected.
static const lua_Integer lk_journal_kept_entries = 16;

void lk_transaction_commit(lua_State *L) {
  lk_info *info = lk_info_of(L);
  lua_Integer length = info->journal_length;
  info->journal_length = 0;
  if (length <= lk_journal_kept_entries) return;
  lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_journal_key);
  for (lua_Integer slot = length * 3; slot > lk_journal_kept_entries * 3; slot--) {
    lua_pushnil(L);
    lua_rawseti(L, -2, slot);
  }
  lua_pop(L, 1);
}

static int lk_rollback_journal(lua_State *L) {
  lk_info *info = lk_info_of(L);
  lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_journal_key);
  int journal = lua_gettop(L);
  for (lua_Integer slot = info->journal_length * 3; slot > 0; slot -= 3) {
    lua_rawgeti(L, journal, slot - 2);
    lua_rawgeti(L, journal, slot - 1);
    lua_rawgeti(L, journal, slot);
    lua_rawset(L, -3);
    lua_pop(L, 1);
  }
  return 0;
}

int lk_transaction_rollback(lua_State *L) {
  lk_info *info = lk_info_of(L);
  if (info->journal_length == 0) return LUA_OK;
  // Putting a removed key back may allocate: protected, and without the cap, so the undo
  // does not fail for want of the memory the failed action used.
  int saved_enforce = info->enforce_memory;
  info->enforce_memory = 0;
  lua_pushcfunction(L, lk_rollback_journal);
  int status = lua_pcall(L, 0, 0, 0);
  if (status != LUA_OK) lua_pop(L, 1);
  info->enforce_memory = saved_enforce;
  lk_transaction_commit(L);
  return status;
}

int lk_transaction_wrote(lua_State *L) { return lk_info_of(L)->journal_length > 0; }

int lk_transaction_pcall(lua_State *L, int nargs, int nresults) {
  lk_transaction_commit(L);
  return lk_pcall(L, nargs, nresults);
}

int lk_normalize_action(lua_State *L, int index) {
  index = lua_absindex(L, index);
  switch (lua_type(L, index)) {
    case LUA_TSTRING:
      lua_createtable(L, 0, 1);
      lua_pushvalue(L, index);
      lua_setfield(L, -2, "type");
      lua_replace(L, index);
      return 1;
    case LUA_TTABLE: {
      // "type" kept in the registry's array part: fetching it there is cheaper than making
      // Lua find the interned string for a C string on every action.
      lk_info *info = lk_info_of(L);
      if (info->type_string_ref == 0) {
        lua_pushliteral(L, "type");
        info->type_string_ref = luaL_ref(L, LUA_REGISTRYINDEX);
      }
      lua_rawgeti(L, LUA_REGISTRYINDEX, info->type_string_ref);
      int ok = lua_rawget(L, index) == LUA_TSTRING;
      lua_pop(L, 1);
      return ok;
    }
    default:
      return 0;
  }
}
