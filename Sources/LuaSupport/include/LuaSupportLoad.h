// Loading chunks: text, or the build's own bytecode (Load.c).
#ifndef LUA_SUPPORT_LOAD_H
#define LUA_SUPPORT_LOAD_H

#include "LuaSupportShims.h"

/// Loads a chunk in text mode only: bytecode is refused.
int lk_loadtext(lua_State *L, const char *source, size_t length, const char *chunkname);
/// Loads a chunk of bytecode only, which keeps the name it was compiled with. For chunks the
/// build compiled (LuaPrecompiledChunk): Lua does not check bytecode, so bytes from anywhere
/// else could break the state.
int lk_loadbinary(lua_State *L, const unsigned char *bytecode, size_t length);

#endif
