// A state and what the host keeps beside it (LuaState.c).
#ifndef LUA_SUPPORT_LUA_STATE_H
#define LUA_SUPPORT_LUA_STATE_H

#include "LuaSupportShims.h"

/// A new state with the standard libraries open, a memory cap (0: none) enforced only while
/// Lua code runs under `lk_pcall`, and an atpanic handler that names the bug and aborts.
lua_State *lk_newstate(size_t memory_limit);
/// Closes the state and frees the bookkeeping that lives beside it.
void lk_close(lua_State *L);
/// Whatever the host wants to reach from a callback (the owning VM), shared by all threads.
void lk_set_owner(lua_State *L, void *owner);
void *lk_owner(lua_State *L);

#endif
