// A state and the bookkeeping beside it (lk_info, LuaState.h): lk_newstate makes both, with
// the capped allocator, the budget's watchdog slot and the libraries; lk_close frees both.
#include "LuaState.h"

#include <stdio.h>
#include <stdlib.h>

static int lk_panic(lua_State *L) {
  const char *message = lua_tostring(L, -1);
  fprintf(stderr, "ComposableLua: unprotected Lua error (a bug in the host): %s\n",
          message ? message : "(no message)");
  abort();
}

lua_State *lk_newstate(size_t memory_limit) {
  lk_info *info = calloc(1, sizeof(lk_info));
  if (info == NULL) return NULL;
  lk_memory_open(&info->memory, memory_limit);  // before Lua allocates
  lua_State *L = lua_newstate(lk_alloc, info);
  if (L == NULL) {
    lk_memory_close(&info->memory);
    free(info);
    return NULL;
  }
  *(lk_info **)lua_getextraspace(L) = info;
  info->main = L;
  lk_budget_open(L);
  lua_atpanic(L, lk_panic);
  lk_open_libraries(L);
  // Generational collection: a feature's state is large and long-lived, and each action makes
  // a little short-lived garbage (the action table). In incremental mode every cycle marks the
  // whole state, so the cost per action grew with the state; young collections do not.
  lua_gc(L, LUA_GCGEN, 0, 0);
  // string.dump turns functions into bytecode; nothing here needs it, and string values reach
  // the real string table through their metatable, so it goes from the real table.
  lua_getglobal(L, "string");
  lua_pushnil(L);
  lua_setfield(L, -2, "dump");
  lua_pop(L, 1);
  // The traceback handler stays in the main thread's first stack slot for the state's life,
  // so a protected call from the host names it there instead of inserting it each time.
  lua_pushcfunction(L, lk_traceback);
  return L;
}

void lk_close(lua_State *L) {
  lk_info *info = lk_info_of(L);
  lua_close(L);
  lk_budget_close(&info->budget);
  lk_memory_close(&info->memory);
  lk_names_close(&info->names);
  free(info);
}

void lk_set_owner(lua_State *L, void *owner) { lk_info_of(L)->owner = owner; }
void *lk_owner(lua_State *L) { return lk_info_of(L)->owner; }
