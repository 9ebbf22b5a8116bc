// The `composable.json` module (JSON.c).
#ifndef LUA_SUPPORT_JSON_H
#define LUA_SUPPORT_JSON_H

#include "LuaSupportShims.h"

/// Pushes the `composable.json` table: `encode`, `decode`, `array` and `null` (see JSON.c).
void lk_push_json_module(lua_State *L);

#endif
