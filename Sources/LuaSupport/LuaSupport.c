#include "LuaSupport.h"
#include "LuaSupportState.h"

#include <stdio.h>
#include <stdlib.h>

// The hook runs every `granularity` instructions: cheap, and precise enough for a budget.
static const int lk_hook_granularity = 1000;

// MARK: - Capped allocator

static void *lk_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  lk_info *info = (lk_info *)ud;
  size_t old = ptr ? osize : 0;  // when ptr is NULL, osize is a type tag, not a size
  if (nsize == 0) {
    free(ptr);
    info->memory_used -= old;
    return NULL;
  }
  if (nsize > old && info->enforce_memory && info->memory_limit != 0 &&
      info->memory_used + (nsize - old) > info->memory_limit) {
    info->last_failure = LK_FAILURE_MEMORY_LIMIT;
    return NULL;  // Lua collects garbage, retries once, then raises LUA_ERRMEM
  }
  void *block = realloc(ptr, nsize);
  if (block != NULL) info->memory_used = info->memory_used - old + nsize;
  return block;
}

static int lk_panic(lua_State *L) {
  const char *message = lua_tostring(L, -1);
  fprintf(stderr, "ComposableLua: unprotected Lua error (a bug in the host): %s\n",
          message ? message : "(no message)");
  abort();
}

lua_State *lk_newstate(size_t memory_limit) {
  lk_info *info = calloc(1, sizeof(lk_info));
  if (info == NULL) return NULL;
  info->memory_limit = memory_limit;
  lua_State *L = lua_newstate(lk_alloc, info);
  if (L == NULL) {
    free(info);
    return NULL;
  }
  *(lk_info **)lua_getextraspace(L) = info;
  lua_atpanic(L, lk_panic);
  luaL_openlibs(L);
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
  return L;
}

void lk_close(lua_State *L) {
  lk_info *info = lk_info_of(L);
  lua_close(L);
  free(info);
}

void lk_set_memory_limit(lua_State *L, size_t bytes) { lk_info_of(L)->memory_limit = bytes; }
size_t lk_memory_limit(lua_State *L) { return lk_info_of(L)->memory_limit; }
size_t lk_memory_used(lua_State *L) { return lk_info_of(L)->memory_used; }

// MARK: - Instruction budget

static void lk_count_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  lk_info *info = lk_info_of(L);
  if (info->instruction_limit == 0 || info->call_depth == 0) return;
  if (!info->budget_exhausted) {
    info->instructions_used += lua_gethookcount(L);
    if (info->instructions_used <= info->instruction_limit) {
      if (lua_gethookcount(L) != lk_hook_granularity)
        lua_sethook(L, lk_count_hook, LUA_MASKCOUNT, lk_hook_granularity);
      return;
    }
    info->budget_exhausted = 1;
  }
  // From now on every instruction raises, so a `pcall` in the script cannot swallow the stop:
  // each frame fails at its first instruction until the error reaches lk_pcall.
  lua_sethook(L, lk_count_hook, LUA_MASKCOUNT, 1);
  // Inside a hook, level 0 is the Lua function that was running: name its line.
  luaL_where(L, 0);
  lua_pushfstring(L, "instruction limit of %I exceeded", (lua_Integer)info->instruction_limit);
  lua_concat(L, 2);
  lua_error(L);
}

void lk_set_instruction_limit(lua_State *L, int64_t instructions) {
  lk_info *info = lk_info_of(L);
  info->instruction_limit = instructions < 0 ? 0 : instructions;
  if (info->instruction_limit == 0) lua_sethook(L, NULL, 0, 0);
  else lua_sethook(L, lk_count_hook, LUA_MASKCOUNT, lk_hook_granularity);
}

int64_t lk_instruction_limit(lua_State *L) { return lk_info_of(L)->instruction_limit; }

// MARK: - Protected calls

static int lk_traceback(lua_State *L) {
  lk_info *info = lk_info_of(L);
  info->enforce_memory = 0;  // building the report must not fail for want of memory
  const char *message = lua_tostring(L, 1);
  if (message == NULL) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
      message = lua_tostring(L, -1);
    else
      message = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  }
  luaL_traceback(L, L, message, 1);
  return 1;
}

// Entering Lua from the host: at the top level the budget starts afresh (on `thread`, whose
// hook counts it), and the memory cap applies until `lk_leave`.
static int lk_enter(lua_State *L, lua_State *thread) {
  lk_info *info = lk_info_of(L);
  if (info->call_depth == 0) {
    info->instructions_used = 0;
    info->budget_exhausted = 0;
    if (info->instruction_limit != 0)
      lua_sethook(thread, lk_count_hook, LUA_MASKCOUNT, lk_hook_granularity);
  }
  info->last_failure = LK_FAILURE_NONE;
  int saved_enforce = info->enforce_memory;
  info->enforce_memory = 1;
  info->call_depth += 1;
  return saved_enforce;
}

// Leaving Lua: notes why a failed call failed, beyond Lua's status code.
static void lk_leave(lua_State *L, int status, int saved_enforce) {
  lk_info *info = lk_info_of(L);
  info->call_depth -= 1;
  info->enforce_memory = saved_enforce;
  if (status == LUA_OK || status == LUA_YIELD) {
    info->last_failure = LK_FAILURE_NONE;
  } else if (info->budget_exhausted) {
    info->last_failure = LK_FAILURE_INSTRUCTION_LIMIT;
  } else if (status == LUA_ERRMEM && info->memory_limit != 0) {
    info->last_failure = LK_FAILURE_MEMORY_LIMIT;
  }
}

int lk_pcall(lua_State *L, int nargs, int nresults) {
  int handler = lua_gettop(L) - nargs;
  lua_pushcfunction(L, lk_traceback);
  lua_insert(L, handler);
  int saved_enforce = lk_enter(L, L);
  int status = lua_pcall(L, nargs, nresults, handler);
  lk_leave(L, status, saved_enforce);
  lua_remove(L, handler);
  return status;
}

lk_failure lk_last_failure(lua_State *L) { return lk_info_of(L)->last_failure; }

int lk_resume(lua_State *L, lua_State *co, int nargs, int *nresults) {
  int saved_enforce = lk_enter(L, co);
  int status = lua_resume(co, L, nargs, nresults);
  if (status != LUA_OK && status != LUA_YIELD) {
    // The coroutine's stack is still there: describe the error with its traceback, without
    // the memory cap (building the report must not fail for want of memory).
    lk_info_of(L)->enforce_memory = 0;
    const char *message = lua_tostring(co, -1);
    if (message == NULL) message = lua_pushfstring(co, "(error object is a %s value)", luaL_typename(co, -1));
    luaL_traceback(L, co, message, 0);
  }
  lk_leave(L, status, saved_enforce);
  return status;
}

int lk_loadtext(lua_State *L, const char *source, size_t length, const char *chunkname) {
  return luaL_loadbufferx(L, source, length, chunkname, "t");
}

// MARK: - Host functions

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
  int saved_enforce = info->enforce_memory;
  info->enforce_memory = 0;
  int results = function->callback(L, function->context);
  info->enforce_memory = saved_enforce;
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
  if (luaL_newmetatable(L, "composable.host_function")) {
    lua_pushcfunction(L, lk_host_function_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
  }
  lua_setmetatable(L, -2);
  lua_pushcclosure(L, lk_trampoline, 1);
}

void lk_set_owner(lua_State *L, void *owner) { lk_info_of(L)->owner = owner; }
void *lk_owner(lua_State *L) { return lk_info_of(L)->owner; }
