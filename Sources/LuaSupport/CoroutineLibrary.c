// coroutine.create, wrap, resume and close, as Lua 5.4.4's, with the limits kept across them,
// and yields passed on (LK_PASSED_ON, below).
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

// Values a coroutine yields that `resume` and `wrap` pass on up instead of answering with them:
// the tables among the keys of a weak-keyed table in the registry under this name, which trusted
// code fills (the Lua test runner's requests to its host, made by a TestStore called in a
// coroutine the test made: they went to the test's coroutine, and the call was dropped). Code in
// a sandbox cannot reach the registry. The yield is passed on from the thread that resumed, and
// the coroutine resumed with what that thread is resumed with. The threads among its keys are
// ones the host resumes, which `resume` and `close` refuse.
#define LK_PASSED_ON "composable.passed_on"

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

// Whether the one table `co` yielded (the `results` values on top of L) is one to pass on up
// (registry[LK_PASSED_ON], see lk_coroutine_pass_on_open).
static int lk_passes_on(lua_State *L, int status, int results) {
  if (status != LUA_YIELD || results != 1 || lua_type(L, -1) != LUA_TTABLE) return 0;
  if (lua_getfield(L, LUA_REGISTRYINDEX, LK_PASSED_ON) != LUA_TTABLE) {
    lua_pop(L, 1);
    return 0;
  }
  lua_pushvalue(L, -2);
  int passes = lua_rawget(L, -2) != LUA_TNIL;
  lua_pop(L, 2);
  return passes;
}

// Notes (or forgets) that the thread L waits in a pass-on: registry[LK_PASSED_ON][L], so that
// no Lua code resumes or closes it before the answer comes. Resumed by Lua code there, a
// coroutine's own resume failed before the one it passes on to ran (the C stack was full), and
// the host's answer, its token first, went to Lua code instead. Returns whether it noted it (a
// thread already there, a test's own, stays).
static int lk_note_passing(lua_State *L, int passing) {
  if (lua_getfield(L, LUA_REGISTRYINDEX, LK_PASSED_ON) != LUA_TTABLE) {
    lua_pop(L, 1);
    return 0;
  }
  lua_pushthread(L);
  int noted = 0;
  if (passing) {
    lua_pushvalue(L, -1);
    if (lua_rawget(L, -3) == LUA_TNIL) {
      lua_pop(L, 1);
      lua_pushboolean(L, 1);
      lua_rawset(L, -3);
      noted = 1;
    } else {
      lua_pop(L, 2);
    }
  } else {
    lua_pushnil(L);
    lua_rawset(L, -3);
  }
  lua_pop(L, 1);
  return noted;
}

// Yields the value on top of L (one `co` yielded, to be passed on) to whoever resumed L; `k`
// resumes `co` with what L is resumed with (its context: whether L was noted as waiting, to be
// forgotten then). Where L cannot yield, an error says why.
static int lk_pass_on(lua_State *L, lua_KFunction k) {
  if (!lua_isyieldable(L)) {
    return luaL_error(L, "a coroutine asked the host from where it cannot be answered (resumed "
                         "inside a function C calls, such as string.gsub's or a metamethod)");
  }
  int noted = lk_note_passing(L, 1);
  return lua_yieldk(L, 1, noted, k);
}

// Whether `co` is a thread registered in registry[LK_PASSED_ON]: one its host resumes (a Lua
// test's), which no Lua code may resume. The function given to a TestStore's send resumed the
// test's own thread, and the test's failure went to that function instead of the host.
static int lk_is_driven_by_host(lua_State *L, lua_State *co) {
  if (lua_getfield(L, LUA_REGISTRYINDEX, LK_PASSED_ON) != LUA_TTABLE) {
    lua_pop(L, 1);
    return 0;
  }
  lua_pushthread(co);
  lua_xmove(co, L, 1);
  int driven = lua_rawget(L, -2) != LUA_TNIL;
  lua_pop(L, 2);
  return driven;
}

static int lk_raise_driven(lua_State *L) {
  return luaL_error(L, "cannot resume a coroutine the host resumes (a Lua test's own, or one "
                       "waiting for the host's answer to a call it passed on)");
}

// Whether `co` is the VM's main thread, which a host runs: no Lua code resumes it (Lua says it
// is not suspended) or closes it (it is running, or resuming another). Reached by
// `coroutine.running()` where a test file loads, closing it reset the host's stack mid-resume.
static int lk_is_main_thread(lua_State *L, lua_State *co) {
  lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
  int main = lua_tothread(L, -1) == co;
  lua_pop(L, 1);
  return main;
}

// coroutine.resume(co, ...), and its continuation after a yield passed on (the answers are then
// where the arguments were).
static int lk_coroutine_resume_from(lua_State *L, int status, lua_KContext context) {
  (void)status;
  if (context) lk_note_passing(L, 0);
  lua_State *co = lua_tothread(L, 1);
  int resumed;
  int results = lk_resume_moving(L, co, lua_gettop(L) - 1, &resumed);
  lk_caught(L);
  if (results < 0) {
    lk_shape_error_caught(&lk_info_of(L)->shape);
    lua_pushboolean(L, 0);
    lua_insert(L, -2);
    return 2;
  }
  if (lk_passes_on(L, resumed, results)) return lk_pass_on(L, lk_coroutine_resume_from);
  lua_pushboolean(L, 1);
  lua_insert(L, -(results + 1));
  return results + 1;
}

static int lk_coroutine_resume(lua_State *L) {
  lua_State *co = lk_coroutine_argument(L);
  if (lk_is_main_thread(L, co)) {
    lua_pushboolean(L, 0);
    lua_pushliteral(L, "cannot resume non-suspended coroutine");
    return 2;
  }
  if (lk_is_driven_by_host(L, co)) return lk_raise_driven(L);
  return lk_coroutine_resume_from(L, LUA_OK, 0);
}

// The function coroutine.wrap returns (upvalue 1: its coroutine): errors go on to the caller.
// Also its continuation after a yield passed on.
static int lk_coroutine_wrapped_from(lua_State *L, int resume_status, lua_KContext context) {
  (void)resume_status;
  if (context) lk_note_passing(L, 0);
  lua_State *co = lua_tothread(L, lua_upvalueindex(1));
  int status;
  int results = lk_resume_moving(L, co, lua_gettop(L), &status);
  if (lk_passes_on(L, status, results)) return lk_pass_on(L, lk_coroutine_wrapped_from);
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

static int lk_coroutine_wrapped(lua_State *L) { return lk_coroutine_wrapped_from(L, LUA_OK, 0); }

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
  if (lk_is_main_thread(L, co)) {
    return luaL_error(L, "cannot close a %s coroutine", L == co ? "running" : "normal");
  }
  if (lk_is_driven_by_host(L, co)) return lk_raise_driven(L);
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
  lk_push_weak_keyed_table(L);
  lua_setfield(L, LUA_REGISTRYINDEX, LK_PASSED_ON);
}
