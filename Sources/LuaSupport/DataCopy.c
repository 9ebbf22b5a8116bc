// A copy of a Lua value as a state holds data (lk_copy_data): what a snapshot into Swift and a
// push back would make, made in Lua without the trip. A feature's initial state is made this
// way: the table `initial_state()` returns is copied, so no module local holds any of it.
//
// The rules are the snapshot's: a proxy stands for its real table; tables become plain tables,
// marked as arrays when they carry the array marker or hold exactly the keys 1..n (n > 0),
// any other metatable dropped. A key or a value that is no data (a table key; a function, a
// coroutine or a userdata key; a function or a coroutine value), a table that contains itself,
// or tables nested deeper than LK_DATA_MAX_DEPTH are errors: the host then takes the snapshot's
// path, whose errors name the field. One difference: a table reached twice is copied once and
// shared, where a push back would copy it twice, so a value that holds one table 2^40 times
// over costs one copy.
#include "LuaState.h"

#include "KeyOrder.h"

enum { LK_DATA_MAX_DEPTH = 200 };  // LuaValue.maximumDepth

// Stack slots of the protected body: whether each table's fields are copied in key order (a
// copy that failed is made again so, for an error that names the same field in every run:
// KeyOrder.h), and the table of the tables reached: source -> its copy, or `true` while it is
// being copied (reached again then, it contains itself).
enum { IN_KEY_ORDER = 2, REACHED = 3 };

static void lk_copy_value(lua_State *L, int source, int depth);

// As lk_next over the table at `table`, but through the keys of the sorted list at `list` (of
// `count`): pops the key at the top, pushes the next key and its value; 0 at the end, pushing
// nothing.
static int lk_next_in_list(
    lua_State *L, int table, int list, lua_Integer count, lua_Integer *next) {
  lua_pop(L, 1);
  if (*next > count) return 0;
  lua_rawgeti(L, list, (*next)++);
  lua_pushvalue(L, -1);
  lua_rawget(L, table);
  return 1;
}

// Pushes the copy of the table at `source` (absolute).
static void lk_copy_table(lua_State *L, int source, int depth) {
  if (depth >= LK_DATA_MAX_DEPTH) luaL_error(L, "nested too deep");
  luaL_checkstack(L, 8, "nested too deep");
  if (lk_push_proxied_table(L, source)) {  // a proxy: its real table
    lk_copy_table(L, lua_gettop(L), depth);
    lua_remove(L, -2);
    return;
  }
  lua_pushvalue(L, source);
  switch (lua_rawget(L, REACHED)) {
    case LUA_TTABLE: return;  // reached before: shared
    case LUA_TBOOLEAN: luaL_error(L, "cycle");
  }
  lua_pop(L, 1);
  lua_pushvalue(L, source);
  lua_pushboolean(L, 1);
  lua_rawset(L, REACHED);

  lua_newtable(L);
  int copy = lua_gettop(L);
  lua_Integer count = 0, largest = 0;
  int sequence = 1;
  int in_order = lua_toboolean(L, IN_KEY_ORDER);
  lua_Integer ordered = 0, next_ordered = 1;
  // The keys, sorted, in a list below the loop's key and value.
  if (in_order) ordered = lk_push_sorted_keys(L, source, 0);
  lua_pushnil(L);
  while (in_order ? lk_next_in_list(L, source, copy + 1, ordered, &next_ordered)
                  : lk_next_visible(L, source) != 0) {
    int key = lua_gettop(L) - 1;
    int key_type = lua_type(L, key);
    if (key_type != LUA_TSTRING && key_type != LUA_TNUMBER && key_type != LUA_TBOOLEAN) {
      luaL_error(L, "a %s cannot be a state key (keys are strings, numbers and booleans)",
                 key_type == LUA_TTHREAD ? "coroutine" : lua_typename(L, key_type));
    }
    count += 1;
    if (sequence && lua_isinteger(L, key) && lua_tointeger(L, key) >= 1) {
      if (lua_tointeger(L, key) > largest) largest = lua_tointeger(L, key);
    } else {
      sequence = 0;
    }
    lua_pushvalue(L, key);
    lk_copy_value(L, key + 1, depth + 1);
    lua_rawset(L, copy);
    lua_pop(L, 1);
  }
  if (in_order) lua_settop(L, copy);  // the list
  if (lk_has_array_marker(L, source) || (sequence && count > 0 && largest == count)) {
    lk_mark_array(L, copy);
  }
  lua_pushvalue(L, source);
  lua_pushvalue(L, copy);
  lua_rawset(L, REACHED);  // an existing key: allocates nothing
}

// Pushes the copy of the value at `source` (absolute).
static void lk_copy_value(lua_State *L, int source, int depth) {
  int type = lua_type(L, source);
  if (type == LUA_TTABLE) {
    lk_copy_table(L, source, depth);
  } else if (type == LUA_TFUNCTION || type == LUA_TTHREAD) {  // code, not data (Transaction.c)
    luaL_error(L, "a %s cannot be kept in the state (state is data: tables, strings, numbers "
                  "and booleans; keep a name for what it does)",
               type == LUA_TTHREAD ? "coroutine" : "function");
  } else {
    lua_pushvalue(L, source);
  }
}

static int lk_copy_data_protected(lua_State *L) {
  lua_settop(L, 2);  // the value, IN_KEY_ORDER
  lua_newtable(L);  // REACHED
  lk_copy_value(L, 1, 0);
  return 1;
}

int lk_copy_data(lua_State *L, int index) {
  index = lua_absindex(L, index);
  lua_pushcfunction(L, lk_copy_data_protected);
  lua_pushvalue(L, index);
  lua_pushboolean(L, 0);
  int status = lk_pcall_uncapped(L, 2, 1);
  if (status != LUA_ERRRUN) return status;
  // Refused: copied again in key order, so that the error names the first bad field in that
  // order (in hash order, `{ a = print, b = coroutine }` read as either, from run to run).
  lua_pushcfunction(L, lk_copy_data_protected);
  lua_pushvalue(L, index);
  lua_pushboolean(L, 1);
  int again = lk_pcall_uncapped(L, 2, 1);
  if (again == LUA_ERRRUN) {
    lua_replace(L, -2);
  } else {
    lua_pop(L, 1);  // the first error stands
  }
  return status;
}
