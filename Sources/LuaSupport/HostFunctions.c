// Host functions: a Lua C closure over a Swift function. The Swift function never raises; it
// returns a status and the trampoline here raises, so a longjmp never crosses a Swift frame.
#include "LuaState.h"

typedef struct {
  lk_host_callback callback;
  lk_host_release release;
  void *context;
} lk_host_function;

static int lk_host_function_gc(lua_State *L) {
  lk_host_function *function = lua_touserdata(L, 1);
  if (function->release != NULL && function->context != NULL) function->release(function->context);
  function->context = NULL;
  return 0;
}

static int lk_trampoline(lua_State *L) {
  lk_host_function *function = lua_touserdata(L, lua_upvalueindex(1));
  lk_info *info = lk_info_of(L);
  // Swift code runs without the memory cap so that no allocation raises inside a Swift frame.
  int saved_enforce = lk_memory_cap_set(&info->memory, 0);
  int results = function->callback(L, function->context);
  lk_memory_cap_restore(&info->memory, saved_enforce);
  if (results < 0) {  // the Swift side pushed the message; name the Lua line that called
    luaL_where(L, 1);
    lua_insert(L, -2);
    lua_concat(L, 2);
    return lua_error(L);
  }
  return results;
}

void lk_push_host_function(
    lua_State *L, lk_host_callback callback, lk_host_release release, void *context) {
  lk_host_function *function = lua_newuserdatauv(L, sizeof(lk_host_function), 0);
  function->callback = callback;
  function->release = release;
  function->context = context;
  if (luaL_newmetatable(L, "luakit.host_function")) {
    lua_pushcfunction(L, lk_host_function_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
  }
  lua_setmetatable(L, -2);
  lua_pushcclosure(L, lk_trampoline, 1);
}
