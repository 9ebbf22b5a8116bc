// The small-block pool (Pool.c): the free lists and slabs the capped allocator (Allocator.c)
// takes small blocks from. Taking and giving a block are inline: they are on the path of every
// allocation Lua makes.
#ifndef LK_POOL_H
#define LK_POOL_H

#include <lua5.4/lua.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

// Small blocks of a state, by 16-byte size class up to 256 bytes.
enum { LK_POOL_GRANULE = 16, LK_POOL_CLASSES = 16, LK_POOL_SLAB = 16 * 1024 };

// New blocks are carved from two groups of slabs: strings, and everything else. A table sits
// beside its fields and its neighbours (one page for a todo read at random, not three), while
// the tables of a large structure that became garbage (the table `initial_state()` returned,
// once copied) free whole slabs: the strings the copy shares are not among them.
enum { LK_POOL_OBJECTS = 0, LK_POOL_STRINGS = 1, LK_POOL_GROUPS = 2 };

typedef struct lk_free_block {
  struct lk_free_block *next;
} lk_free_block;

// The first granule of every slab.
typedef struct lk_slab {
  struct lk_slab *next;  // every slab of the pool, linked
  uint32_t carved;       // bytes carved from it into blocks
  uint32_t free;         // of those, bytes on the free lists (counted by lk_pool_trim)
} lk_slab;

// A state's pool: part of the allocator's part of lk_info (lk_memory, Allocator.h), written only
// by the functions here, which the allocator calls.
typedef struct {
  lk_free_block *free[LK_POOL_CLASSES];  // freed blocks, one list a class
  // The unused rest of each group's newest slab (LK_POOL_GROUPS).
  char *cursor[LK_POOL_GROUPS];
  char *end[LK_POOL_GROUPS];
  lk_slab *current[LK_POOL_GROUPS];  // the slab the cursor is in
  lk_slab *slabs;
  size_t slab_count;
} lk_pool;

// Lua allocates and frees small blocks all the time: the table of each action and its fields,
// the tables and strings of a state. They come from free lists, one a size class, carved from
// 16 KiB slabs; larger blocks go to malloc. A freed small block goes back to its list. New
// strings are carved from slabs of their own, everything else from shared ones (a table beside
// its fields, for locality). Nothing on that path counts anything: when the memory cap is reached,
// or the host asks (lk_release_free_memory), `lk_pool_trim` adds up the free bytes of each slab
// from the lists, and a slab whose every carved byte is free goes back to the system. The cap
// counts every slab, so a state never holds more than its cap.
#define LK_POOL_LARGEST ((size_t)LK_POOL_GRANULE * LK_POOL_CLASSES)

static inline int lk_pool_class(size_t size) { return (int)((size - 1) / LK_POOL_GRANULE); }
static inline size_t lk_pool_rounded(size_t size) {
  return (size_t)(lk_pool_class(size) + 1) * LK_POOL_GRANULE;
}

// Which slabs a new block is carved from: strings apart from everything else (see
// LK_POOL_GROUPS). `tag` is what Lua passes as the old size of a new block: the type of the
// object, or 0 for a vector.
static inline int lk_pool_group(size_t tag) {
  return (tag & 0x0F) == LUA_TSTRING ? LK_POOL_STRINGS : LK_POOL_OBJECTS;
}

// Whether a small block of `size` bytes for `group` needs a new slab.
static inline int lk_pool_needs_slab(const lk_pool *pool, size_t size, int group) {
  if (pool->free[lk_pool_class(size)] != NULL) return 0;
  return (size_t)(pool->end[group] - pool->cursor[group]) < lk_pool_rounded(size);
}

static inline void *lk_pool_take(lk_pool *pool, size_t size, int group) {
  int size_class = lk_pool_class(size);
  lk_free_block *block = pool->free[size_class];
  if (block != NULL) {
    pool->free[size_class] = block->next;
    return block;
  }
  size_t rounded = lk_pool_rounded(size);
  if ((size_t)(pool->end[group] - pool->cursor[group]) < rounded) {  // the rest is too small
    lk_slab *slab = malloc(LK_POOL_SLAB);
    if (slab == NULL) return NULL;
    slab->next = pool->slabs;
    slab->carved = 0;
    pool->slabs = slab;
    pool->slab_count += 1;
    pool->current[group] = slab;
    pool->cursor[group] = (char *)slab + LK_POOL_GRANULE;  // after the header, aligned
    pool->end[group] = (char *)slab + LK_POOL_SLAB;
  }
  void *result = pool->cursor[group];
  pool->cursor[group] += rounded;
  pool->current[group]->carved += (uint32_t)rounded;
  return result;
}

static inline void lk_pool_give(lk_pool *pool, void *block, size_t size) {
  lk_free_block *freed = block;
  int size_class = lk_pool_class(size);
  freed->next = pool->free[size_class];
  pool->free[size_class] = freed;
}

// Gives the slabs whose carved bytes are all free back to the system (see Pool.c).
void lk_pool_trim(lk_pool *pool);
/// Frees every slab of the pool.
void lk_pool_close(lk_pool *pool);

#endif
