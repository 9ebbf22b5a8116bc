// What code a Lua function runs, as a number (FunctionCode.c).
#ifndef LUA_SUPPORT_FUNCTION_CODE_H
#define LUA_SUPPORT_FUNCTION_CODE_H

#include "LuaSupportShims.h"

#include <stdint.h>

/// A hash of the code the function at `index` runs: its bytecode without debug information
/// (lua_dump, stripped, and the lines it was defined at left out: a line added above it changes
/// nothing), without where its upvalues come from (a local added around it changes nothing),
/// and what its upvalues hold: the code of each function it holds (a C function by its address),
/// numbers, strings and booleans; a table by its type alone, the globals not at all. Each
/// function once, within bounds of depth and work past which what is not looked into is not
/// compared. Equal for the same source loaded twice in one process; different when the code
/// changed (a reload that changed a coroutine's body, a local helper it calls, a constant it
/// holds). 0 when the value is no function. Raises nothing, and leaves the stack as it found it.
uint64_t lk_function_code_hash(lua_State *L, int index);

#endif
