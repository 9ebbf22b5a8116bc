// The order in which keys are shown and walked when an answer must not depend on a table's
// history (hash order follows each process's string-hash seed, and the addresses of tables):
// numbers as Lua compares them, then strings by their bytes, then false before true, then the
// rest by type (tables, functions, userdata, coroutines: Lua's type numbers), keys of one such
// type tied, in the order met. What names a place by such a key names its type alone, the same
// for each key of the type. `LuaValue.keyOrder` in Swift has the data keys in the same order.
#ifndef LK_KEY_ORDER_H
#define LK_KEY_ORDER_H

#include "LuaSupport.h"

#include <string.h>

static inline int lk_key_rank(lua_State *L, int index) {
  switch (lua_type(L, index)) {
    case LUA_TNUMBER: return 0;
    case LUA_TSTRING: return 1;
    case LUA_TBOOLEAN: return 2;
    default: return 3;
  }
}

/// Whether the key at `a` comes before the key at `b` (absolute indices). Runs no metamethod.
static inline int lk_key_before(lua_State *L, int a, int b) {
  int ra = lk_key_rank(L, a), rb = lk_key_rank(L, b);
  if (ra != rb) return ra < rb;
  if (ra == 0) return lua_compare(L, a, b, LUA_OPLT);  // numbers: no metamethod
  if (ra == 1) {
    size_t la, lb;
    const char *sa = lua_tolstring(L, a, &la), *sb = lua_tolstring(L, b, &lb);
    int order = memcmp(sa, sb, la < lb ? la : lb);
    return order < 0 || (order == 0 && la < lb);
  }
  if (ra == 2) return !lua_toboolean(L, a) && lua_toboolean(L, b);
  return lua_type(L, a) < lua_type(L, b);
}

/// Sorts the list (a table with values at 1 to `count`) at `list` (absolute) in key order, a
/// merge sort, stable: n log n comparisons, `count` more slots in a table it makes and drops.
void lk_sort_keys(lua_State *L, int list, lua_Integer count);

/// Pushes a list of the visible keys of the table at `table` (absolute), those whose values are
/// tables alone when `tables_only`, in key order; returns how many.
lua_Integer lk_push_sorted_keys(lua_State *L, int table, int tables_only);

#endif
