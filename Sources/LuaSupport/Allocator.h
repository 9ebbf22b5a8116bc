// The capped allocator (Allocator.c): what Lua allocates goes through it, small blocks to the
// pool and large ones to malloc, under a memory cap that applies only while Lua code runs.
#ifndef LK_ALLOCATOR_H
#define LK_ALLOCATOR_H

#include "LuaSupport.h"
#include "Pool.h"

enum { LK_MAX_ORPHANS = 64 };

// The allocator's part of lk_info, written only by Allocator.c and the inline functions below.
typedef struct {
  size_t used;         // what Lua asked for and holds
  size_t large_bytes;  // blocks from malloc; with the pool's slabs, what the VM holds
  size_t limit;        // 0: no cap; bounds what the VM holds, slabs included
  int enforce;         // the cap applies only while Lua code runs under lk_pcall
  int orphan_count;    // malloc blocks Lua shrank to a small size (see lk_resize)
  lk_pool pool;
  void *orphans[LK_MAX_ORPHANS];
} lk_memory;

// The state's part (defined in LuaState.h, which has the whole of lk_info).
static inline lk_memory *lk_memory_of(lua_State *L);

/// The allocator Lua is given (lua_newstate), with the state's lk_info as `ud`.
void *lk_alloc(void *ud, void *ptr, size_t osize, size_t nsize);
/// Sets up the allocator's part of a new lk_info (zeroed), before Lua allocates.
void lk_memory_open(lk_memory *memory, size_t limit);
/// Frees what the allocator holds beside the state, once Lua closed it.
void lk_memory_close(lk_memory *memory);
/// Raises the memory limit error, as an allocation of `bytes` would, when they do not fit in
/// what the cap leaves: a C function checks before doing the work that would build them.
void lk_reserve_memory(lua_State *L, size_t bytes);

// The cap is switched on for Lua code and off for the host's own work; each switch returns
// what `lk_memory_cap_restore` puts back. Inline: every protected call and host function
// switches it.
static inline int lk_memory_cap_set(lk_memory *memory, int enforce) {
  int saved = memory->enforce;
  memory->enforce = enforce;
  return saved;
}
static inline void lk_memory_cap_restore(lk_memory *memory, int saved) {
  memory->enforce = saved;
}

// lua_pcall for the host's own work (a write, a copy, an undo, a journal replaced): outside
// the memory cap, as marshalling is, so it does not fail for want of memory the reducer used.
static inline int lk_pcall_uncapped(lua_State *L, int arguments, int results) {
  lk_memory *memory = lk_memory_of(L);
  int saved_enforce = lk_memory_cap_set(memory, 0);
  int status = lua_pcall(L, arguments, results, 0);
  lk_memory_cap_restore(memory, saved_enforce);
  return status;
}

#endif
