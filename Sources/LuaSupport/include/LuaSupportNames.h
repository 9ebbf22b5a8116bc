// Interned names (Names.c).
#ifndef LUA_SUPPORT_NAMES_H
#define LUA_SUPPORT_NAMES_H

#include "LuaSupportShims.h"

/// Pushes interned name `index`: the string made from `bytes` the first time and kept in the
/// registry, then pushed from there (no hashing of the bytes, no lookup in the string table).
/// Returns 0, pushing nothing, when the table of names cannot grow (out of memory).
int lk_push_name(lua_State *L, int index, const char *bytes, size_t length);

#endif
