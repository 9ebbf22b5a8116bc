// The capped allocator: every block Lua asks for, small ones from the state's pool (Pool.c),
// large ones from malloc, under the memory cap while Lua code runs (lk_pcall switches it on);
// and what the host asks of the state's memory.
#include "LuaState.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Blocks from malloc that Lua shrank to a small size when no slab could be had: they must go
// back to malloc, not to a free list (they are in no slab). Only when malloc fails.
static int lk_take_orphan(lk_memory *memory, void *block) {
  for (int i = 0; i < memory->orphan_count; i++) {
    if (memory->orphans[i] != block) continue;
    memory->orphans[i] = memory->orphans[--memory->orphan_count];
    return 1;
  }
  return 0;
}

// Frees a block of `size` bytes, wherever it came from.
static void lk_release(lk_memory *memory, void *block, size_t size) {
  if (size > LK_POOL_LARGEST) {
    free(block);
    memory->large_bytes -= size;
  } else if (memory->orphan_count != 0 && lk_take_orphan(memory, block)) {
    free(block);
    memory->large_bytes -= LK_POOL_LARGEST + 1;  // what it counted as (see lk_resize)
  } else {
    lk_pool_give(&memory->pool, block, size);
  }
}

// A block of `size` bytes holding the first bytes of `block` (of `old` bytes, or NULL).
static void *lk_resize(lk_memory *memory, void *block, size_t old, size_t size, int group) {
  lk_pool *pool = &memory->pool;
  if (size > LK_POOL_LARGEST) {
    if (block != NULL && old > LK_POOL_LARGEST) {
      void *grown = realloc(block, size);
      if (grown != NULL) memory->large_bytes = memory->large_bytes - old + size;
      return grown;
    }
    void *large = malloc(size);
    if (large == NULL) return NULL;
    memory->large_bytes += size;
    if (block != NULL) {
      memcpy(large, block, old);  // old < size here
      lk_release(memory, block, old);
    }
    return large;
  }
  if (block != NULL && old <= LK_POOL_LARGEST && lk_pool_class(old) == lk_pool_class(size))
    return block;
  void *small = lk_pool_take(pool, size, group);
  if (small == NULL) {
    if (block == NULL || size > old) return NULL;
    // Lua requires a shrink to succeed, and keeping the block does: it is at least `size`
    // bytes. A small block joins `size`'s list when freed. A malloc block is remembered, so
    // that it goes back to malloc; it counts as just over the largest small size.
    if (old > LK_POOL_LARGEST) {
      if (memory->orphan_count == LK_MAX_ORPHANS) {
        fprintf(stderr, "ComposableLua: out of memory (malloc failed for a 16 KiB slab)\n");
        abort();
      }
      memory->orphans[memory->orphan_count++] = block;
      memory->large_bytes -= old - (LK_POOL_LARGEST + 1);
    }
    return block;
  }
  if (block != NULL) {
    memcpy(small, block, old < size ? old : size);
    lk_release(memory, block, old);
  }
  return small;
}


static size_t lk_held(const lk_memory *memory) {
  return memory->large_bytes + memory->pool.slab_count * (size_t)LK_POOL_SLAB;
}

// What the VM would hold once `block` (of `old` bytes) became `size` bytes.
static size_t lk_held_after(
    const lk_memory *memory, void *block, size_t old, size_t size, int group) {
  size_t held = lk_held(memory);
  if (size > LK_POOL_LARGEST) {
    return held + size - (block != NULL && old > LK_POOL_LARGEST ? old : 0);
  }
  if (block != NULL && old <= LK_POOL_LARGEST && lk_pool_class(old) == lk_pool_class(size))
    return held;
  return lk_pool_needs_slab(&memory->pool, size, group) ? held + LK_POOL_SLAB : held;
}

void *lk_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  lk_info *info = (lk_info *)ud;
  lk_memory *memory = &info->memory;
  size_t old = ptr ? osize : 0;  // when ptr is NULL, osize is a type tag, not a size
  int group = ptr ? LK_POOL_OBJECTS : lk_pool_group(osize);
  if (nsize == 0) {
    if (ptr != NULL) lk_release(memory, ptr, old);
    memory->used -= old;
    return NULL;
  }
  if (nsize > old && memory->enforce && memory->limit != 0 &&
      lk_held_after(memory, ptr, old, nsize, group) > memory->limit) {
    lk_pool_trim(&memory->pool);
    if (lk_held_after(memory, ptr, old, nsize, group) > memory->limit) {
      info->last_failure = LK_FAILURE_MEMORY_LIMIT;  // the one field two modules write
      return NULL;  // Lua collects garbage, retries once, then raises LUA_ERRMEM
    }
  }
  void *block = lk_resize(memory, ptr, old, nsize, group);
  if (block == NULL) return NULL;
  memory->used = memory->used - old + nsize;
  lk_budget_note_allocation(&info->budget, info->main, old, nsize);
  return block;
}

// Under AddressSanitizer malloc is the sanitizer's, and glibc's own heap was never set up:
// malloc_trim sets it up on its first call, and two threads making that first call at once
// crashed the sanitized suite (mtrim reading an arena half made). There is nothing of glibc's
// to give back then.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LK_MALLOC_IS_SANITIZERS 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define LK_MALLOC_IS_SANITIZERS 1
#endif

void lk_release_free_memory(lua_State *L) {
  lk_pool_trim(&lk_memory_of(L)->pool);
#if defined(__GLIBC__) && !defined(LK_MALLOC_IS_SANITIZERS)
  malloc_trim(0);  // what the slabs and Lua's large blocks left free inside malloc's heap
#endif
}

void lk_memory_open(lk_memory *memory, size_t limit) { memory->limit = limit; }
void lk_memory_close(lk_memory *memory) { lk_pool_close(&memory->pool); }

void lk_set_memory_limit(lua_State *L, size_t bytes) { lk_memory_of(L)->limit = bytes; }
size_t lk_memory_limit(lua_State *L) { return lk_memory_of(L)->limit; }
size_t lk_memory_used(lua_State *L) { return lk_memory_of(L)->used; }
size_t lk_memory_held(lua_State *L) { return lk_held(lk_memory_of(L)); }

void lk_reserve_memory(lua_State *L, size_t bytes) {
  lk_memory *memory = lk_memory_of(L);
  if (!memory->enforce || memory->limit == 0) return;
  size_t held = lk_held(memory);
  if (held < memory->limit && bytes <= memory->limit - held) return;
  // Over what is left: ask for it as Lua would, so the cap refuses it the usual way (after an
  // emergency collection) and the error is the memory limit's.
  lua_newuserdatauv(L, bytes, 0);
  lua_pop(L, 1);
}
