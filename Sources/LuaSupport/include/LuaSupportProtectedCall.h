// Calls into Lua, each under the limits, with a traceback on error (ProtectedCall.c).
#ifndef LUA_SUPPORT_PROTECTED_CALL_H
#define LUA_SUPPORT_PROTECTED_CALL_H

#include "LuaSupportShims.h"

/// Why the last `lk_pcall` failed, beyond Lua's own status code.
typedef enum {
  LK_FAILURE_NONE = 0,
  LK_FAILURE_INSTRUCTION_LIMIT = 1,
  LK_FAILURE_MEMORY_LIMIT = 2,
  LK_FAILURE_TIME_LIMIT = 3,
} lk_failure;

/// Calls the function below `nargs` arguments with a traceback message handler, under the
/// limits. Returns Lua's status code; on error the message (with traceback) is on top.
int lk_pcall(lua_State *L, int nargs, int nresults);
/// The reason the most recent failed `lk_pcall` on this state failed.
lk_failure lk_last_failure(lua_State *L);
/// Resumes coroutine `co` with the `nargs` values on its stack, under the limits. Returns Lua's
/// status: LUA_YIELD or LUA_OK leave `*nresults` values on `co`; on an error the message, with
/// the coroutine's traceback, is pushed onto `L`.
int lk_resume(lua_State *L, lua_State *co, int nargs, int *nresults);
/// Closes the suspended or failed coroutine `co` (lua_resetthread) under the limits, as a
/// top-level call: its pending to-be-closed variables are closed. LUA_OK, or an error status
/// with the message on top of L. A coroutine that had failed is no new failure.
int lk_close_coroutine(lua_State *L, lua_State *co);

#endif
