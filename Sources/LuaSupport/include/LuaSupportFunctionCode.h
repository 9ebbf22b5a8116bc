// What code a Lua function runs, as a number (FunctionCode.c).
#ifndef LUA_SUPPORT_FUNCTION_CODE_H
#define LUA_SUPPORT_FUNCTION_CODE_H

#include "LuaSupportShims.h"

#include <stdint.h>

/// A hash of the code the function at `index` runs: its bytecode without debug information
/// (lua_dump, stripped: a line added above it changes nothing) and, in the order they are
/// numbered, its upvalues': the code of each Lua function among them, again with theirs, to a
/// few levels, and each number, string and boolean as it is. A table or a userdata counts by
/// its type alone, `_ENV` not at all (the globals, the same for every function of a chunk), a C
/// function by being one. Equal for the same source compiled twice, in any VM of this Lua;
/// different when the code changed (a reload that changed a coroutine's body). 0 when the
/// value is no function. Raises nothing, and leaves the stack as it found it.
uint64_t lk_function_code_hash(lua_State *L, int index);

#endif
