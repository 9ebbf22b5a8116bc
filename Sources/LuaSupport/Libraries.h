// The standard libraries, with the functions the state replaces (Libraries.c): each file opens
// its own, over Lua's.
#ifndef LK_LIBRARIES_H
#define LK_LIBRARIES_H

#include "LuaSupport.h"

void lk_open_libraries(lua_State *L);
void lk_base_library_open(lua_State *L);       // BaseLibrary.c
void lk_coroutine_library_open(lua_State *L);  // CoroutineLibrary.c
void lk_string_library_open(lua_State *L);     // StringLibrary.c
void lk_patterns_open(lua_State *L);           // Patterns.c
void lk_table_library_open(lua_State *L);      // TableLibrary.c
void lk_utf8_library_open(lua_State *L);       // UTF8Library.c

#endif
