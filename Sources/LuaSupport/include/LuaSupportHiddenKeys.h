// Reading state tables from the host: the proxies' tables, and a walk that hides the
// hidden keys (HiddenKeys.c).
#ifndef LUA_SUPPORT_HIDDEN_KEYS_H
#define LUA_SUPPORT_HIDDEN_KEYS_H

#include "LuaSupportShims.h"

/// If the value at `index` is a transactional proxy, pushes the table it stands for and returns
/// 1; otherwise pushes nothing and returns 0.
int lk_push_proxied_table(lua_State *L, int index);
/// `lua_next` for tables of a state: skips the keys that link tables and proxies. Every host
/// reader of a table that may belong to a state iterates with it.
int lk_next(lua_State *L, int index);

#endif
