// Protected calls into Lua from the host: every call goes through lk_pcall (or lk_resume,
// lk_close_coroutine for a coroutine), which enters the limits (the budget afresh at the top
// level, the memory cap on), runs the call with a traceback handler, and on the way out says
// why a failed call failed (lk_last_failure), beyond Lua's status code.
#include "LuaState.h"

#include "TableDescription.h"

// The longest error message a report keeps: a longer one is cut, so that building the report
// (which runs without the cap) copies a bounded amount.
enum { LK_MESSAGE_MAX = 16 * 1024 };

// Pushes the message at `index` of `from` onto L, cut to LK_MESSAGE_MAX bytes (not for fewer
// bytes than the note of the cut takes).
static const char *lk_push_bounded_message(lua_State *L, lua_State *from, int index) {
  size_t length = 0;
  const char *message = lua_tolstring(from, index, &length);
  if (length <= LK_MESSAGE_MAX + 24) return lua_pushlstring(L, message, length);
  lua_pushlstring(L, message, LK_MESSAGE_MAX);
  lua_pushfstring(L, "... (%I more bytes)", (lua_Integer)(length - LK_MESSAGE_MAX));
  lua_concat(L, 2);
  return lua_tostring(L, -1);
}

// The registry's key for the report lk_traceback keeps aside.
static const char lk_report_key = 0;

int lk_traceback(lua_State *L) {
  lk_info *info = lk_info_of(L);
  lua_settop(L, 1);
  lua_pushvalue(L, 1);  // slot 2: the error object as raised, handed on at the end
  int type = lua_type(L, 1);
  int described = type == LUA_TSTRING || type == LUA_TNUMBER;
  int has_tostring = 0;
  if (!described && luaL_getmetafield(L, 1, "__tostring") != LUA_TNIL) {
    has_tostring = 1;
    // The error object's own description: feature code, so under the cap and the budget like
    // any other (a spent budget makes it fail at once), and protected.
    lua_pushvalue(L, 1);
    if (lua_pcall(L, 1, 1, 0) == LUA_OK && lua_type(L, -1) == LUA_TSTRING) {
      lua_replace(L, 1);
      described = 1;
    }
  }
  // The report is built without the cap, which must not fail it, and is bounded instead: a cut
  // message and luaL_traceback's own cut of deep stacks. The cap comes back before Lua code
  // runs again (the __close handlers of the unwinding call run after this handler).
  int saved_enforce = lk_memory_cap_set(&info->memory, 0);
  if (described) {
    lk_push_bounded_message(L, L, 1);
  } else if (type == LUA_TTABLE && !has_tostring) {
    lk_push_table_description(L, 1);
  } else {
    lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  }
  // The message as a Lua string, not through a C string, which would end it at a NUL byte.
  lua_pushliteral(L, "\n");
  luaL_traceback(L, L, NULL, 1);
  lua_concat(L, 3);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &lk_report_key);
  info->calls.report_depth = info->calls.depth;
  lk_memory_cap_restore(&info->memory, saved_enforce);
  lua_settop(L, 2);
  return 1;
}

// After a call that failed: the error object on top replaced by the report the handler kept
// aside for it (the last one: a __close handler that raised while unwinding replaced the error,
// and its report the first one's). A memory error, which Lua raises without the handler, keeps
// its message.
static void lk_take_report(lua_State *L, int status) {
  lk_info *info = lk_info_of(L);
  if (info->calls.report_depth != info->calls.depth) return;
  info->calls.report_depth = 0;
  if (status == LUA_OK || status == LUA_YIELD || status == LUA_ERRMEM) {
    lua_pushnil(L);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &lk_report_key);
    return;
  }
  lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_report_key);
  lua_replace(L, -2);
  lua_pushnil(L);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &lk_report_key);
}

// Entering Lua from the host: at the top level the budget starts afresh (on `thread`, whose
// hook counts it), and the memory cap applies until `lk_leave`.
static inline __attribute__((always_inline)) int lk_enter(lua_State *L, lua_State *thread) {
  lk_info *info = lk_info_of(L);
  if (info->calls.depth == 0) lk_budget_begin(&info->budget, info->main, thread);
  info->last_failure = LK_FAILURE_NONE;
  int saved_enforce = lk_memory_cap_set(&info->memory, 1);
  info->calls.depth += 1;
  return saved_enforce;
}

// Leaving Lua: notes why a failed call failed, beyond Lua's status code.
static inline __attribute__((always_inline)) void lk_leave(
    lua_State *L, int status, int saved_enforce) {
  lk_info *info = lk_info_of(L);
  info->calls.depth -= 1;
  lk_memory_cap_restore(&info->memory, saved_enforce);
  if (info->calls.depth == 0) lk_budget_end(&info->budget, info->main);
  if (status == LUA_OK || status == LUA_YIELD) {
    info->last_failure = LK_FAILURE_NONE;
  } else if (info->budget.stopped) {
    info->last_failure = info->budget.stopped;
  } else if (status == LUA_ERRMEM && info->memory.limit != 0) {
    info->last_failure = LK_FAILURE_MEMORY_LIMIT;
  }
}

// A call that was stopped (lk_stop) fails, even when Lua code caught the stop's error and the
// call returned: its results (from `base` up) are dropped for the stop's error.
static int lk_fail_stopped_call(lua_State *L, int status, int base) {
  lk_info *info = lk_info_of(L);
  if (status == LUA_OK || status == LUA_YIELD) {
    lua_settop(L, base);
    int saved_enforce = lk_memory_cap_set(&info->memory, 0);
    lk_push_stop_error(L, -1);
    lua_pushliteral(L, " (the error was caught in Lua, but a limit ends the whole call)");
    lua_concat(L, 2);
    lk_memory_cap_restore(&info->memory, saved_enforce);
  }
  return status == LUA_OK || status == LUA_YIELD ? LUA_ERRRUN : status;
}

int lk_pcall(lua_State *L, int nargs, int nresults) {
  // The handler in slot 1 (see lk_newstate) when this is the main thread; otherwise, pushed
  // below the function and removed after.
  // The top is read once: below the function is where a stopped call's results are dropped.
  int top = lua_gettop(L);
  int resident = top > nargs + 1 && lua_tocfunction(L, 1) == lk_traceback;
  int handler = 1;
  if (!resident) {
    handler = top - nargs;
    lua_pushcfunction(L, lk_traceback);
    lua_insert(L, handler);
    top += 1;
  }
  int base = top - nargs - 1;  // below the function
  int saved_enforce = lk_enter(L, L);
  int status = lua_pcall(L, nargs, nresults, handler);
  if (__builtin_expect(lk_info_of(L)->calls.report_depth != 0, 0)) lk_take_report(L, status);
  if (__builtin_expect(lk_info_of(L)->budget.stopped != LK_FAILURE_NONE, 0)) {
    status = lk_fail_stopped_call(L, status, base);
  }
  lk_leave(L, status, saved_enforce);
  if (!resident) lua_remove(L, handler);
  return status;
}

lk_failure lk_last_failure(lua_State *L) { return lk_info_of(L)->last_failure; }

// The error object on top of `co` (a coroutine that failed) described by its __tostring, as
// lk_traceback describes a call's: feature code, so run on L under the cap and the budget the
// call entered with, protected. Pushes the string onto L and returns 1; returns 0, pushing
// nothing, for a string or a number, an object without __tostring, or one whose __tostring
// failed or gave no string.
static int lk_push_tostring_of_error(lua_State *L, lua_State *co) {
  int type = lua_type(co, -1);
  if (type == LUA_TSTRING || type == LUA_TNUMBER) return 0;
  if (!lua_checkstack(co, 2) || !lua_checkstack(L, 3)) return 0;
  if (luaL_getmetafield(co, -1, "__tostring") == LUA_TNIL) return 0;
  lua_pushvalue(co, -2);
  lua_xmove(co, L, 2);  // __tostring and the object; the object stays on `co` too
  lk_info *info = lk_info_of(L);
  lk_budget_count_on(&info->budget, info->main, L);  // the call counted on `co` until now
  if (lua_pcall(L, 1, 1, 0) == LUA_OK && lua_type(L, -1) == LUA_TSTRING) return 1;
  lua_pop(L, 1);
  return 0;
}

// Pushes onto L the message of the error on top of `co`, without the memory cap (building the
// report must not fail for want of memory), bounded: `described` is lk_push_tostring_of_error's
// answer, whose string (on top of L) it replaces.
static void lk_push_coroutine_message(lua_State *L, lua_State *co, int described) {
  lk_memory_cap_set(lk_memory_of(L), 0);
  if (described) {
    lk_push_bounded_message(L, L, -1);
    lua_remove(L, -2);
    return;
  }
  int type = lua_type(co, -1), top = lua_gettop(co);
  if (type == LUA_TSTRING || type == LUA_TNUMBER) {
    lk_push_bounded_message(L, co, -1);
  } else if (type == LUA_TTABLE && lua_checkstack(co, 2) && lua_checkstack(L, 2) &&
             luaL_getmetafield(co, -1, "__tostring") == LUA_TNIL) {
    lua_pushvalue(co, -1);
    lua_xmove(co, L, 1);  // a copy: the object stays on `co` for its traceback
    lk_push_table_description(L, -1);
    lua_remove(L, -2);
  } else {
    lua_settop(co, top);  // a __tostring that failed, which luaL_getmetafield pushed
    lua_pushfstring(L, "(error object is a %s value)", luaL_typename(co, -1));
  }
}

int lk_resume(lua_State *L, lua_State *co, int nargs, int *nresults) {
  int saved_enforce = lk_enter(L, co);
  int status = lua_resume(co, L, nargs, nresults);
  if (status != LUA_OK && status != LUA_YIELD) {
    // The coroutine's stack is still there: describe the error with its traceback.
    lk_push_coroutine_message(L, co, lk_push_tostring_of_error(L, co));
    lua_pushliteral(L, "\n");  // the message kept whole, a NUL in it too (see lk_traceback)
    luaL_traceback(L, co, NULL, 0);
    lua_concat(L, 3);
  }
  if (__builtin_expect(lk_info_of(L)->budget.stopped != LK_FAILURE_NONE, 0)) {
    if (status == LUA_OK || status == LUA_YIELD) {
      lua_pop(co, *nresults);
      *nresults = 0;
    }
    status = lk_fail_stopped_call(L, status, lua_gettop(L));
  }
  lk_leave(L, status, saved_enforce);
  return status;
}

int lk_close_coroutine(lua_State *L, lua_State *co) {
  int before = lua_status(co);
  int failed = before != LUA_OK && before != LUA_YIELD;
  // A coroutine that had failed is closed with its error, which it then still holds: that is
  // no new failure. A __close handler that raised is one (its error replaces the first), so
  // the first is kept here to tell them apart.
  int original = 0;
  if (failed && lua_gettop(co) > 0 && lua_checkstack(L, 2)) {
    lua_pushvalue(co, -1);
    lua_xmove(co, L, 1);
    original = lua_gettop(L);
  }
  int saved_enforce = lk_enter(L, co);
  int status = lua_resetthread(co);  // runs its pending __close handlers
  if (status != LUA_OK && failed && original != 0 && lua_gettop(co) > 0) {
    lua_xmove(co, L, 1);
    int same = lua_rawequal(L, -1, original);
    lua_xmove(L, co, 1);
    if (same) status = LUA_OK;
  }
  if (original != 0) lua_remove(L, original);
  if (status != LUA_OK) {
    lk_push_coroutine_message(L, co, lk_push_tostring_of_error(L, co));
  }
  lua_settop(co, 0);
  if (__builtin_expect(lk_info_of(L)->budget.stopped != LK_FAILURE_NONE, 0)) {
    status = lk_fail_stopped_call(L, status, lua_gettop(L));
  }
  lk_leave(L, status, saved_enforce);
  return status;
}
