// Copies of values as a state holds data (DataCopy.c).
#ifndef LUA_SUPPORT_DATA_COPY_H
#define LUA_SUPPORT_DATA_COPY_H

#include "LuaSupportShims.h"

/// Pushes a copy of the value at `index` as a state holds data (see DataCopy.c): plain tables,
/// arrays marked, no table keys, no cycles, at most 200 deep. Returns LUA_OK, or an error
/// status with a short reason on the stack instead.
int lk_copy_data(lua_State *L, int index);

#endif
