// The action-tag check (ActionTags.c).
#ifndef LUA_SUPPORT_ACTION_TAGS_H
#define LUA_SUPPORT_ACTION_TAGS_H

#include "LuaSupportShims.h"

/// Makes the value at `index` a tagged table, the tag field's name being the string in registry
/// slot `tag_ref`: a string `s` becomes `{ [tag] = s }`, and a table must have a string under
/// `tag`. Returns 0 (leaving the value) if it is neither.
int lk_normalize_tagged(lua_State *L, int index, int tag_ref);

#endif
