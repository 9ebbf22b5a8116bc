// Sorting keys in the order of KeyOrder.h, for the walks whose answer names a place.
#include "LuaState.h"

#include "KeyOrder.h"

void lk_sort_keys(lua_State *L, int list, lua_Integer count) {
  if (count < 2) return;
  luaL_checkstack(L, 4, "sorting keys");
  lua_createtable(L, count < INT32_MAX ? (int)count : 0, 0);
  int other = lua_gettop(L);
  int from = list, to = other;
  for (lua_Integer width = 1; width < count; width *= 2) {
    for (lua_Integer start = 1; start <= count; start += 2 * width) {
      lua_Integer middle = start + width, end = start + 2 * width;
      if (middle > count + 1) middle = count + 1;
      if (end > count + 1) end = count + 1;
      lua_Integer i = start, j = middle, out = start;
      while (i < middle || j < end) {
        int take_right = 0;
        if (i < middle && j < end) {
          lua_rawgeti(L, from, i);
          lua_rawgeti(L, from, j);
          take_right = lk_key_before(L, lua_gettop(L), lua_gettop(L) - 1);  // strictly before
          lua_pop(L, 2);
        } else {
          take_right = i >= middle;
        }
        lua_rawgeti(L, from, take_right ? j++ : i++);
        lua_rawseti(L, to, out++);
      }
    }
    int swap = from;
    from = to;
    to = swap;
  }
  if (from != list) {
    for (lua_Integer i = 1; i <= count; i++) {
      lua_rawgeti(L, from, i);
      lua_rawseti(L, list, i);
    }
  }
  lua_settop(L, other - 1);
}

lua_Integer lk_push_sorted_keys(lua_State *L, int table, int tables_only) {
  luaL_checkstack(L, 4, "sorting keys");
  lua_newtable(L);
  int list = lua_gettop(L);
  lua_Integer count = 0;
  lua_pushnil(L);
  while (lk_next_visible(L, table) != 0) {
    if (!tables_only || lua_type(L, -1) == LUA_TTABLE) {
      lua_pushvalue(L, -2);
      lua_rawseti(L, list, ++count);
    }
    lua_pop(L, 1);
  }
  lk_sort_keys(L, list, count);
  return count;
}
