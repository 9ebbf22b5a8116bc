// The libraries a state opens, in one place (as Lua's linit.c): Lua's standard libraries, then
// the functions this package writes again over them, each from its own file. What each
// replaces and why is said at the top of its file:
//
// - Transaction.c: next, pairs, rawget, rawset, rawlen, setmetatable (state proxies);
// - BaseLibrary.c: pcall, xpcall, tonumber, and the sandbox's load, print and warn;
// - CoroutineLibrary.c: coroutine.create, resume, wrap, close;
// - StringLibrary.c and Patterns.c: string.rep, byte, find, match, gmatch, gsub;
// - TableLibrary.c: table.insert, remove, move, concat, unpack, sort;
// - UTF8Library.c: utf8.len, codepoint, offset, codes.
#include "LuaState.h"

#include "TableDescription.h"

void lk_open_libraries(lua_State *L) {
  luaL_openlibs(L);
  lk_transactions_open(L);
  lk_base_library_open(L);
  lk_coroutine_library_open(L);
  lk_string_library_open(L);
  lk_patterns_open(L);
  lk_table_library_open(L);
  lk_utf8_library_open(L);
  lk_reading_functions_open(L);  // after the libraries: the strings' metatable as they left it
  lk_table_description_open(L);
}
