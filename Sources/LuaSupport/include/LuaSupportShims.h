// Lua API shims: `static inline` versions of the parts of Lua's API made of macros or
// variadics, which Swift cannot call.
#ifndef LUA_SUPPORT_SHIMS_H
#define LUA_SUPPORT_SHIMS_H

#include <lua5.4/lua.h>
#include <lua5.4/lualib.h>
#include <lua5.4/lauxlib.h>
#include <stddef.h>
#include <stdint.h>

static const int LK_REGISTRYINDEX = LUA_REGISTRYINDEX;
static const int LK_MULTRET = LUA_MULTRET;
static const int LK_NOREF = LUA_NOREF;
static const int LK_REFNIL = LUA_REFNIL;
static const lua_Integer LK_RIDX_GLOBALS = LUA_RIDX_GLOBALS;

// `0/0` as Lua computes it, at run time (`luai_numdiv`, a plain division): the machine's
// default NaN, whose sign bit x86 sets (`lua5.4 -e 'print(0/0)'` prints `-nan`) and ARM does
// not. Through a volatile, so that no compiler folds it into a NaN of its own choosing.
static inline double lk_zero_over_zero(void) {
  volatile double zero = 0.0;
  return zero / zero;
}

static inline void lk_pop(lua_State *L, int n) { lua_pop(L, n); }
static inline void lk_newtable(lua_State *L) { lua_newtable(L); }
static inline const char *lk_tostring(lua_State *L, int i) { return lua_tostring(L, i); }
static inline int lk_isnoneornil(lua_State *L, int i) { return lua_isnoneornil(L, i); }
static inline void lk_insert(lua_State *L, int i) { lua_insert(L, i); }
static inline void lk_remove(lua_State *L, int i) { lua_remove(L, i); }
static inline void lk_replace(lua_State *L, int i) { lua_replace(L, i); }
static inline int lk_upvalueindex(int i) { return lua_upvalueindex(i); }
static inline void lk_pushglobaltable(lua_State *L) { lua_pushglobaltable(L); }
static inline int lk_gc_count_kb(lua_State *L) { return lua_gc(L, LUA_GCCOUNT); }
static inline int lk_gc_count_b(lua_State *L) { return lua_gc(L, LUA_GCCOUNTB); }
static inline void *lk_newuserdata(lua_State *L, size_t size) {
  return lua_newuserdatauv(L, size, 0);
}

#endif
