// Protected calls into Lua from the host (ProtectedCall.c): lk_pcall, lk_resume and
// lk_close_coroutine, each under the limits, with a traceback on error.
#ifndef LK_PROTECTED_CALL_H
#define LK_PROTECTED_CALL_H

#include "LuaSupport.h"

// The protected calls' part of lk_info, written only by ProtectedCall.c; the budget and the
// loader read it, to tell a call in flight.
typedef struct {
  int depth;  // nesting of lk_pcall; the budget is per top-level call
  // The depth of the lk_pcall whose message handler left its report in the registry
  // (lk_traceback), to put in place of the error object once the call is over; 0 for none. (A
  // call nested in a __close handler while the call unwinds is deeper, and leaves it alone.)
  int report_depth;
} lk_calls;

/// The message handler of every protected call. It hands the error object on unchanged, as
/// a plain `pcall` does, for the `__close` handlers that run while the call unwinds (Lua 5.4
/// closes them with what the handler returned: they got the report, a string, where `lua5.4`
/// gives them the object), and keeps the report aside (the error's message with its
/// traceback), which lk_pcall puts in the object's place. lk_newstate leaves it in the main
/// thread's first stack slot for the state's life.
int lk_traceback(lua_State *L);

#endif
