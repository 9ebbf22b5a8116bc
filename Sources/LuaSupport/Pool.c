// The small-block pool: free lists, one a size class, carved from 16 KiB slabs (Pool.h has the
// layout and the inline paths that take and give a block); here, what runs rarely: the trim
// that gives emptied slabs back to the system, and the close.
#include "Pool.h"

#include <stdlib.h>

// Slabs come from plain malloc, not aligned_alloc: an aligned block leaves a gap before it
// that malloc can rarely fill, which held a third of a large state's memory. So a block finds
// its slab by a search in the slabs sorted by address, which only lk_pool_trim needs.
static int lk_slab_order(const void *left, const void *right) {
  uintptr_t a = (uintptr_t)*(lk_slab *const *)left, b = (uintptr_t)*(lk_slab *const *)right;
  return a < b ? -1 : a > b;
}

// The slab of `sorted` (`count` slabs by address) that holds `block`.
static lk_slab *lk_slab_of(lk_slab **sorted, size_t count, const void *block) {
  size_t low = 0, high = count;  // the first slab past the block is at `high`
  while (low < high) {
    size_t middle = low + (high - low) / 2;
    if ((uintptr_t)sorted[middle] <= (uintptr_t)block) low = middle + 1;
    else high = middle;
  }
  return sorted[low - 1];  // a block is in some slab: low > 0
}

// Gives the slabs whose carved bytes are all free back to the system: their free blocks leave
// the lists first. Runs only when the cap is reached or the host asks, so its cost (the free
// lists' length, times a search) is rare. Without the memory to sort the slabs, it does
// nothing.
void lk_pool_trim(lk_pool *pool) {
  if (pool->slab_count == 0) return;
  lk_slab **sorted = malloc(pool->slab_count * sizeof(lk_slab *));
  if (sorted == NULL) return;
  size_t count = 0;
  for (lk_slab *slab = pool->slabs; slab != NULL; slab = slab->next) {
    slab->free = 0;
    sorted[count++] = slab;
  }
  qsort(sorted, count, sizeof(lk_slab *), lk_slab_order);
  for (int size_class = 0; size_class < LK_POOL_CLASSES; size_class++) {
    uint32_t size = (uint32_t)(size_class + 1) * LK_POOL_GRANULE;
    for (lk_free_block *block = pool->free[size_class]; block != NULL; block = block->next) {
      lk_slab_of(sorted, count, block)->free += size;
    }
  }
  for (int size_class = 0; size_class < LK_POOL_CLASSES; size_class++) {
    lk_free_block **link = &pool->free[size_class];
    while (*link != NULL) {
      lk_slab *slab = lk_slab_of(sorted, count, *link);
      if (slab->free == slab->carved) *link = (*link)->next;
      else link = &(*link)->next;
    }
  }
  free(sorted);
  lk_slab **link = &pool->slabs;
  while (*link != NULL) {
    lk_slab *slab = *link;
    if (slab->free != slab->carved) {
      link = &slab->next;
      continue;
    }
    for (int group = 0; group < LK_POOL_GROUPS; group++) {
      if (pool->current[group] == slab) {
        pool->current[group] = NULL;
        pool->cursor[group] = pool->end[group] = NULL;
      }
    }
    *link = slab->next;
    free(slab);
    pool->slab_count -= 1;
  }
}

void lk_pool_close(lk_pool *pool) {
  while (pool->slabs != NULL) {
    lk_slab *next = pool->slabs->next;
    free(pool->slabs);
    pool->slabs = next;
  }
  pool->slab_count = 0;
}
