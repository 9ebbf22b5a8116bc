// coroutine.create, wrap, resume and close, as Lua 5.4.4's, with the limits kept across them.
//
// - A new coroutine gets the count hook at once (the main thread gets it only for a call that
//   runs long, see Watchdog.c), so its instructions count against the budget of the call that
//   resumes it.
// - Resuming, and closing, catch the coroutine's errors. A stop (the budget spent, the time up:
//   see lk_stop) must not be caught: when one is in effect these raise it again instead of
//   answering `false, message`, so Lua code cannot go on past a limit by running the work in a
//   coroutine.
// - `coroutine.close` is bounded in depth: Lua 5.4.4 does not count nested closes against its
//   C stack limit, so `__close` handlers that close coroutines whose handlers close coroutines
//   overflow the C stack (fixed in 5.4.5; Debian's 5.4.4 has the bug).
#include "LuaState.h"

// - A coroutine that a stop killed is never closed: its to-be-closed variables are not run,
//   then or in a later call. The stop is raised from the count hook, and Lua leaves a thread
//   whose error came from inside a hook with hooks off for good, so its `__close` handlers
//   would run where neither the budget nor the time limit reaches (a loop there hangs the
//   host). Such threads are kept in a weak-keyed table (registry[&lk_stopped_threads_key]);
//   closing one answers its error as closing any dead coroutine does, without running them.
// Nested coroutine.close calls allowed: far more than any program needs, far less than the
// C stack holds (each level is a few C frames).
enum { LK_CLOSE_MAX_DEPTH = 100 };

static const char lk_stopped_threads_key = 0;

// Notes that a stop killed `co` (see above). The table is made when the library opens, so
// that noting allocates as little as it can while the call fails.
static void lk_note_stopped_thread(lua_State *L, lua_State *co) {
  lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_stopped_threads_key);
  lua_pushthread(co);
  lua_xmove(co, L, 1);
  lua_pushboolean(L, 1);
  lua_rawset(L, -3);
  lua_pop(L, 1);
}

static int lk_was_stopped(lua_State *L, lua_State *co) {
  lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_stopped_threads_key);
  lua_pushthread(co);
  lua_xmove(co, L, 1);
  int stopped = lua_rawget(L, -2) != LUA_TNIL;
  lua_pop(L, 2);
  return stopped;
}

// Closes a dead or suspended `co` as lua_resetthread does (its status, and its error on top of
// its stack), but for a thread a stop killed, whose to-be-closed variables are not run.
static int lk_reset_thread(lua_State *L, lua_State *co) {
  if (!lk_was_stopped(L, co)) return lua_resetthread(co);
  if (!lua_checkstack(co, 1)) luaL_error(L, "stack overflow");
  lua_pushliteral(co, "a limit stopped this coroutine, so its to-be-closed variables are not "
                      "closed");
  return LUA_ERRRUN;
}

static lua_State *lk_coroutine_argument(lua_State *L) {
  lua_State *co = lua_tothread(L, 1);
  luaL_argexpected(L, co, 1, "thread");
  return co;
}

static void lk_hook_new_thread(lua_State *L, lua_State *thread) {
  if (lk_budget_limits_calls(L)) lk_arm_instruction_budget(thread);
}

// Resumes `co` with the `arguments` values on top of L: how many results it moved onto L, or
// -1 with the error on top of L (and in `*status` the coroutine's status).
static int lk_resume_moving(lua_State *L, lua_State *co, int arguments, int *status) {
  if (lk_stopped(L)) lk_raise_stop(L, 1);
  if (!lua_checkstack(co, arguments)) {
    lua_pushliteral(L, "too many arguments to resume");
    *status = LUA_ERRRUN;
    return -1;
  }
  lua_xmove(L, co, arguments);
  int results;
  *status = lua_resume(co, L, arguments, &results);
  if (*status != LUA_OK && *status != LUA_YIELD && lk_stopped(L)) {
    lk_note_stopped_thread(L, co);
  }
  if (*status == LUA_OK || *status == LUA_YIELD) {
    if (!lua_checkstack(L, results + 1)) {
      lua_pop(co, results);
      lua_pushliteral(L, "too many results to resume");
      return -1;
    }
    lua_xmove(co, L, results);
    return results;
  }
  lua_xmove(co, L, 1);
  return -1;
}

static int lk_coroutine_create(lua_State *L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_State *thread = lua_newthread(L);
  lk_hook_new_thread(L, thread);
  lua_pushvalue(L, 1);
  lua_xmove(L, thread, 1);
  return 1;
}

static int lk_coroutine_resume(lua_State *L) {
  lua_State *co = lk_coroutine_argument(L);
  int status;
  int results = lk_resume_moving(L, co, lua_gettop(L) - 1, &status);
  lk_caught(L);
  if (results < 0) {
    lk_shape_error_caught(&lk_info_of(L)->shape);
    lua_pushboolean(L, 0);
    lua_insert(L, -2);
    return 2;
  }
  lua_pushboolean(L, 1);
  lua_insert(L, -(results + 1));
  return results + 1;
}

// The function coroutine.wrap returns (upvalue 1: its coroutine): errors go on to the caller.
static int lk_coroutine_wrapped(lua_State *L) {
  lua_State *co = lua_tothread(L, lua_upvalueindex(1));
  int status;
  int results = lk_resume_moving(L, co, lua_gettop(L), &status);
  if (results >= 0) return results;
  int coroutine_status = lua_status(co);
  if (coroutine_status != LUA_OK && coroutine_status != LUA_YIELD) {
    coroutine_status = lk_reset_thread(L, co);  // closes its to-be-closed variables
    lua_xmove(co, L, 1);
  }
  lk_caught(L);
  if (coroutine_status != LUA_ERRMEM && lua_type(L, -1) == LUA_TSTRING) {
    luaL_where(L, 1);
    lua_insert(L, -2);
    lua_concat(L, 2);
  }
  return lua_error(L);
}

static int lk_coroutine_wrap(lua_State *L) {
  lk_coroutine_create(L);
  lua_pushcclosure(L, lk_coroutine_wrapped, 1);
  return 1;
}

// Whether `co` may be closed: dead or suspended (not running, not resuming another); its
// status name otherwise.
static const char *lk_unclosable_status(lua_State *L, lua_State *co) {
  if (L == co) return "running";
  switch (lua_status(co)) {
    case LUA_YIELD:
      return NULL;
    case LUA_OK: {
      lua_Debug frame;
      if (lua_getstack(co, 0, &frame)) return "normal";
      return NULL;  // dead, or not started
    }
    default:
      return NULL;  // dead with an error
  }
}

static int lk_coroutine_close(lua_State *L) {
  lk_info *info = lk_info_of(L);
  lua_State *co = lk_coroutine_argument(L);
  if (lk_stopped(L)) lk_raise_stop(L, 1);  // no __close handler runs past a limit
  const char *status_name = lk_unclosable_status(L, co);
  if (status_name != NULL) return luaL_error(L, "cannot close a %s coroutine", status_name);
  if (info->coroutines.close_depth >= LK_CLOSE_MAX_DEPTH) {
    return luaL_error(L, "coroutine.close: nested more than %d deep (a __close handler that "
                         "closes a coroutine whose handler closes another, and so on)",
                      LK_CLOSE_MAX_DEPTH);
  }
  info->coroutines.close_depth += 1;
  int status = lk_reset_thread(L, co);
  info->coroutines.close_depth -= 1;
  lk_caught(L);
  if (status == LUA_OK) {
    lua_pushboolean(L, 1);
    return 1;
  }
  lua_pushboolean(L, 0);
  lua_xmove(co, L, 1);
  return 2;
}

void lk_coroutine_library_open(lua_State *L) {
  static const luaL_Reg functions[] = {
      {"create", lk_coroutine_create}, {"resume", lk_coroutine_resume},
      {"wrap", lk_coroutine_wrap}, {"close", lk_coroutine_close}, {NULL, NULL},
  };
  lua_getglobal(L, "coroutine");
  luaL_setfuncs(L, functions, 0);
  lua_pop(L, 1);
  lk_push_weak_keyed_table(L);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &lk_stopped_threads_key);
}
