// The hidden keys (HiddenKeys.c): proxy[&lk_real_key] is the real table a proxy stands for,
// real[&lk_proxy_key] the proxy a real table has, once one was made.
#ifndef LK_HIDDEN_KEYS_H
#define LK_HIDDEN_KEYS_H

#include "LuaSupport.h"

extern const char lk_real_key;
extern const char lk_proxy_key;
static inline int lk_is_hidden_key(lua_State *L, int index) {
  if (lua_type(L, index) != LUA_TLIGHTUSERDATA) return 0;
  const void *key = lua_touserdata(L, index);
  return key == &lk_proxy_key || key == &lk_real_key;
}
/// `lk_next` (a step of `lua_next` that skips the hidden keys), inlined where the C layer walks
/// a table: every step of `pairs` over a state's table is one, and a call into another file
/// for it cost ~10% of that step.
static inline int lk_next_visible(lua_State *L, int index) {
  while (lua_next(L, index) != 0) {
    if (!lk_is_hidden_key(L, -2)) return 1;
    lua_pop(L, 1);
  }
  return 0;
}
/// Whether the table at `index` (absolute) holds no table among its first `most` fields and
/// has no more than that (a larger one counts as holding one): bounded, whatever it holds.
static inline int lk_is_flat_within(lua_State *L, int index, int most) {
  int fields = 0;
  lua_pushnil(L);
  while (lk_next_visible(L, index) != 0) {
    if (lua_type(L, -1) == LUA_TTABLE || ++fields > most) {
      lua_pop(L, 2);
      return 0;
    }
    lua_pop(L, 1);
  }
  return 1;
}
/// If the value at `index` is a proxy, pushes its real table and returns 1; otherwise pushes
/// nothing and returns 0. What sits under the hidden key is checked to be a table.
static inline int lk_push_real_of(lua_State *L, int index) {
  if (lua_type(L, index) != LUA_TTABLE) return 0;
  if (lua_rawgetp(L, index, &lk_real_key) == LUA_TTABLE) return 1;
  lua_pop(L, 1);
  return 0;
}

#endif
