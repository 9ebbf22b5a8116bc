// Protected calls into Lua from the host (ProtectedCall.c): lk_pcall, lk_resume and
// lk_close_coroutine, each under the limits, with a traceback on error.
#ifndef LK_PROTECTED_CALL_H
#define LK_PROTECTED_CALL_H

#include "LuaSupport.h"

// The protected calls' part of lk_info, written only by ProtectedCall.c; the budget and the
// loader read it, to tell a call in flight.
typedef struct {
  int depth;  // nesting of lk_pcall; the budget is per top-level call
} lk_calls;

/// The message handler of every protected call: the error with its traceback. lk_newstate
/// leaves it in the main thread's first stack slot for the state's life.
int lk_traceback(lua_State *L);

#endif
