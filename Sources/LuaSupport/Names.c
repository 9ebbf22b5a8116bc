// Interned names (LuaKit's LuaName): strings Swift pushes again and again, such as the fields of
// typed actions. Each is made once per state and kept in the registry; after that a push is one
// array read and one registry read, where lua_pushlstring would hash the bytes and look them up
// in the string table.

#include <stdlib.h>

#include "LuaState.h"

int lk_push_name(lua_State *L, int index, const char *bytes, size_t length) {
  lk_info *info = lk_info_of(L);
  if (index < info->names.capacity && info->names.slots[index] != 0) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, info->names.slots[index]);
    return 1;
  }
  if (index >= info->names.capacity) {
    int capacity = info->names.capacity == 0 ? 32 : info->names.capacity;
    while (capacity <= index) capacity *= 2;
    int *slots = realloc(info->names.slots, sizeof(int) * (size_t)capacity);
    if (slots == NULL) return 0;
    for (int i = info->names.capacity; i < capacity; i++) slots[i] = 0;
    info->names.slots = slots;
    info->names.capacity = capacity;
  }
  lua_pushlstring(L, bytes, length);
  lua_pushvalue(L, -1);
  info->names.slots[index] = luaL_ref(L, LUA_REGISTRYINDEX);
  return 1;
}

void lk_names_close(lk_names *names) { free(names->slots); }
