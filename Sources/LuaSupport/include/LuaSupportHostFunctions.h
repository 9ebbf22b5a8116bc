// Swift functions called from Lua (HostFunctions.c).
#ifndef LUA_SUPPORT_HOST_FUNCTIONS_H
#define LUA_SUPPORT_HOST_FUNCTIONS_H

#include "LuaSupportShims.h"

/// A Swift function called from Lua. It returns the number of results it pushed, or -1 after
/// pushing an error message, which the trampoline raises. It must never raise itself.
typedef int (*lk_host_callback)(lua_State *L, void *context);
/// Called once when the closure is collected (or the state closes), to release `context`.
typedef void (*lk_host_release)(void *context);
/// Pushes a Lua function that calls `callback(L, context)`.
void lk_push_host_function(
    lua_State *L, lk_host_callback callback, lk_host_release release, void *context);

#endif
