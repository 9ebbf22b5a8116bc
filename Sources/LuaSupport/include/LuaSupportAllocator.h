// The memory cap and what the state holds (Allocator.c).
#ifndef LUA_SUPPORT_ALLOCATOR_H
#define LUA_SUPPORT_ALLOCATOR_H

#include "LuaSupportShims.h"

/// Gives what the state freed back to the system: its pool's slabs that hold nothing, and what
/// malloc keeps free (after a large structure became garbage and was collected).
void lk_release_free_memory(lua_State *L);
void lk_set_memory_limit(lua_State *L, size_t bytes);
size_t lk_memory_limit(lua_State *L);
size_t lk_memory_used(lua_State *L);
/// What the VM makes the process hold: large blocks and every slab of its pool.
size_t lk_memory_held(lua_State *L);

#endif
