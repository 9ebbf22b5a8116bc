// Library functions whose work is charged to the instruction budget.
//
// The budget counts VM instructions, but one instruction can call a C function of the
// standard library that loops for a long time without running any: `string.rep("", 2^62)`,
// `table.move(t, 1, 2^62, 2)`, `table.insert(t, 1, v)` on a long list in a loop. Each wrapper
// here charges the work its call will do (elements moved, bytes copied) before doing it, so a
// call that cannot fit in what is left of the budget fails at once with the budget's error
// instead of running for hours with the feature's lock held. Work bounded by the memory cap
// (building a string) is charged by the allocator instead (LuaSupport.c), and the pattern
// functions count their own steps (Patterns.c).
//
// `coroutine.close` is bounded in depth: Lua 5.4.4 does not count nested closes against its C
// stack limit, so `__close` handlers that close coroutines whose handlers close coroutines
// overflow the C stack (fixed in 5.4.5; Debian's 5.4.4 has the bug).
#include "LuaSupportState.h"

#include <limits.h>

// Nested coroutine.close calls allowed: far more than any program needs, far less than the
// C stack holds (each level is a few C frames).
enum { LK_CLOSE_MAX_DEPTH = 100 };

// Calls the original function (upvalue 1) with this call's arguments, returning its results.
static int lk_call_original(lua_State *L) {
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

// The length of the table at `index` as the library will see it: a state table's real
// length, a plain table's raw length, 0 for anything whose length runs Lua code (which counts
// its own instructions).
static lua_Integer lk_length_hint(lua_State *L, int index) {
  if (lua_type(L, index) != LUA_TTABLE) return 0;
  if (lk_push_proxied_table(L, index)) {
    lua_Integer length = (lua_Integer)lua_rawlen(L, -1);
    lua_pop(L, 1);
    return length;
  }
  return (lua_Integer)lua_rawlen(L, index);
}

static lua_Integer lk_span(lua_Integer first, lua_Integer last) {
  if (last < first) return 0;
  lua_Unsigned span = (lua_Unsigned)last - (lua_Unsigned)first;
  return span >= (lua_Unsigned)LUA_MAXINTEGER ? LUA_MAXINTEGER : (lua_Integer)span + 1;
}

// string.rep(s, n [, sep]): with nothing to repeat the answer is "" at once (Lua's own loops
// n times copying nothing); otherwise the bytes it will copy are charged.
static int lk_string_rep(lua_State *L) {
  size_t length = 0, separator = 0;
  luaL_checklstring(L, 1, &length);
  lua_Integer count = luaL_checkinteger(L, 2);
  luaL_optlstring(L, 3, "", &separator);
  if (count <= 0 || length + separator == 0) {
    lua_pushliteral(L, "");
    return 1;
  }
  lua_Unsigned unit = (lua_Unsigned)(length + separator);
  lua_Unsigned total = (lua_Unsigned)count > LUA_MAXINTEGER / unit
      ? (lua_Unsigned)LUA_MAXINTEGER : (lua_Unsigned)count * unit;
  lk_reserve_memory(L, (size_t)total);
  lk_charge(L, (lua_Integer)(total / 16));
  return lk_call_original(L);
}

// string.byte(s, i, j): one result an element.
static int lk_string_byte(lua_State *L) {
  luaL_checkstring(L, 1);
  lua_Integer first = luaL_optinteger(L, 2, 1);
  lk_charge(L, lk_span(first, luaL_optinteger(L, 3, first)));
  return lk_call_original(L);
}

// table.move(a1, f, e, t [, a2]): one step an element.
static int lk_table_move(lua_State *L) {
  luaL_checkinteger(L, 4);
  lk_charge(L, lk_span(luaL_checkinteger(L, 2), luaL_checkinteger(L, 3)));
  return lk_call_original(L);
}

// table.insert(t, [pos,] v) and table.remove(t [, pos]): the elements they shift.
static int lk_table_shift(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lk_charge(L, lk_length_hint(L, 1));
  return lk_call_original(L);
}

// table.concat(t [, sep [, i [, j]]]) and table.unpack(t [, i [, j]]): one step an element.
static int lk_table_span(lua_State *L, int first_argument) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_Integer first = luaL_optinteger(L, first_argument, 1);
  lua_Integer last = lua_isnoneornil(L, first_argument + 1)
      ? lk_length_hint(L, 1) : luaL_checkinteger(L, first_argument + 1);
  lk_charge(L, lk_span(first, last));
  return lk_call_original(L);
}

static int lk_table_concat(lua_State *L) { return lk_table_span(L, 3); }
static int lk_table_unpack(lua_State *L) { return lk_table_span(L, 2); }

// table.sort(t [, comp]): n log n comparisons (a Lua comparator counts its own instructions).
static int lk_table_sort(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_Integer length = lk_length_hint(L, 1);
  lua_Integer steps = length;
  for (lua_Integer rest = length; rest > 1; rest >>= 1) {
    steps = steps > LUA_MAXINTEGER - length ? LUA_MAXINTEGER : steps + length;
  }
  lk_charge(L, steps);
  return lk_call_original(L);
}

// coroutine.close(co), nested at most LK_CLOSE_MAX_DEPTH deep.
static int lk_coroutine_close(lua_State *L) {
  lk_info *info = lk_info_of(L);
  luaL_argexpected(L, lua_type(L, 1) == LUA_TTHREAD, 1, "coroutine");
  if (info->close_depth >= LK_CLOSE_MAX_DEPTH) {
    return luaL_error(L, "coroutine.close: nested more than %d deep (a __close handler that "
                         "closes a coroutine whose handler closes another, and so on)",
                      LK_CLOSE_MAX_DEPTH);
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  info->close_depth += 1;
  int status = lua_pcall(L, lua_gettop(L) - 1, LUA_MULTRET, 0);
  info->close_depth -= 1;
  if (status != LUA_OK) return lua_error(L);
  return lua_gettop(L);
}

static void lk_wrap_field(
    lua_State *L, const char *library, const char *name, lua_CFunction wrapper) {
  lua_getglobal(L, library);
  lua_getfield(L, -1, name);
  lua_pushcclosure(L, wrapper, 1);
  lua_setfield(L, -2, name);
  lua_pop(L, 1);
}

void lk_bounded_library_open(lua_State *L) {
  lk_wrap_field(L, "string", "rep", lk_string_rep);
  lk_wrap_field(L, "string", "byte", lk_string_byte);
  lk_wrap_field(L, "table", "move", lk_table_move);
  lk_wrap_field(L, "table", "insert", lk_table_shift);
  lk_wrap_field(L, "table", "remove", lk_table_shift);
  lk_wrap_field(L, "table", "concat", lk_table_concat);
  lk_wrap_field(L, "table", "unpack", lk_table_unpack);
  lk_wrap_field(L, "table", "sort", lk_table_sort);
  lk_wrap_field(L, "coroutine", "close", lk_coroutine_close);
}
