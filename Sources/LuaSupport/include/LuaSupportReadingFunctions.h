// Lua functions that can do nothing but read their arguments (ReadingFunctions.c).
#ifndef LUA_SUPPORT_READING_FUNCTIONS_H
#define LUA_SUPPORT_READING_FUNCTIONS_H

#include "LuaSupportShims.h"

/// Whether the value at `index` is a Lua function that, called now, can only read its
/// arguments, the tables inside them, and strings and numbers: no call, no write, no closure,
/// no table made, no global, upvalues holding only nil, booleans, numbers and strings; and
/// every metamethod it could reach is Lua's own (the strings' metatable as it was opened, the
/// string table without a metatable). Such a function may be given a state's real tables:
/// nothing it does can keep them, write them, or hand them to other code. (`table.sort` gives
/// such an order function a state array's real elements.)
int lk_reads_only(lua_State *L, int index);

#endif
