// Lua functions that can do nothing but read their arguments (ReadingFunctions.c; what
// lk_reads_only looks at is said in LuaSupportReadingFunctions.h).
#ifndef LK_READING_FUNCTIONS_H
#define LK_READING_FUNCTIONS_H

#include "LuaSupport.h"

/// Remembers the strings' metatable as the libraries left it (called once they are open): a
/// function that reads only its arguments may still reach its metamethods (`a < "x"`), and is
/// trusted only while it is unchanged.
void lk_reading_functions_open(lua_State *L);

#endif
