// The pattern functions the state replaces by counted ones (Patterns.c).
#ifndef LUA_SUPPORT_PATTERNS_H
#define LUA_SUPPORT_PATTERNS_H

#include "LuaSupportShims.h"

/// Pushes a table of Lua's own string.find, match, gmatch and gsub, which the state replaced
/// by versions that count their steps (Patterns.c): for tests that compare the two.
void lk_push_original_pattern_functions(lua_State *L);

#endif
