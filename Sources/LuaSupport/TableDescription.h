// A table error object described as data (TableDescription.c).
#ifndef LK_TABLE_DESCRIPTION_H
#define LK_TABLE_DESCRIPTION_H

#include "LuaSupport.h"

/// Pushes a description of the table at `index` as Lua would write it, `{ code = 404, path =
/// "/x" }`: keys in order (numbers, then strings by their bytes, then booleans), a list's values
/// alone, a state table's through its proxy. Bounded (LK_DESCRIPTION_MAX bytes, 16 fields a
/// table, 3 levels, 60 bytes a string: what is left out is `…`), and it runs no Lua code: no
/// metamethod is called. For the report of an error raised with a table and no `__tostring`,
/// which `lua5.4` says as `(error object is a table value)`, the same for every table.
void lk_push_table_description(lua_State *L, int index);

// The registry's name for lk_push_table_description as a Lua function of one table.
#define LK_DESCRIBE_TABLE_NAME "composable.describe_table"

/// Puts that function in the registry, for trusted chunks (feature code has no registry).
void lk_table_description_open(lua_State *L);

#endif
