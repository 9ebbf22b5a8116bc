// The action-tag check: an action is a tagged table, and a bare string is the shorthand for
// one (`"increment"` for `{ [tag] = "increment" }`). Apart from the transactions: it reads and
// makes plain tables, and knows nothing of state tables.
#include "LuaSupport.h"

int lk_normalize_tagged(lua_State *L, int index, int tag_ref) {
  index = lua_absindex(L, index);
  switch (lua_type(L, index)) {
    case LUA_TSTRING:
      lua_createtable(L, 0, 1);
      lua_rawgeti(L, LUA_REGISTRYINDEX, tag_ref);
      lua_pushvalue(L, index);
      lua_rawset(L, -3);
      lua_replace(L, index);
      return 1;
    case LUA_TTABLE: {
      // The tag's name from the registry's array part: cheaper than making Lua find the
      // interned string for a C string on every call.
      lua_rawgeti(L, LUA_REGISTRYINDEX, tag_ref);
      int ok = lua_rawget(L, index) == LUA_TSTRING;
      lua_pop(L, 1);
      return ok;
    }
    default:
      return 0;
  }
}
