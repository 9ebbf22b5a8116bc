#include "LuaSupport.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif
#include "LuaSupportState.h"

#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <stdatomic.h>

// The hook runs every `granularity` instructions: cheap, and precise enough for a budget.
static const int lk_hook_granularity = 1000;

// MARK: - Small-block pool

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

// Which slabs a new block is carved from: strings apart from everything else (see
// LK_POOL_GROUPS). `tag` is what Lua passes as the old size of a new block: the type of the
// object, or 0 for a vector.
static inline int lk_pool_group(size_t tag) {
  return (tag & 0x0F) == LUA_TSTRING ? LK_POOL_STRINGS : LK_POOL_OBJECTS;
}

// Whether a small block of `size` bytes for `group` needs a new slab.
static int lk_pool_needs_slab(const lk_pool *pool, size_t size, int group) {
  if (pool->free[lk_pool_class(size)] != NULL) return 0;
  return (size_t)(pool->end[group] - pool->cursor[group]) < lk_pool_rounded(size);
}

static void *lk_pool_take(lk_pool *pool, size_t size, int group) {
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

// Gives the slabs whose carved bytes are all free back to the system: their free blocks leave
// the lists first. Runs only when the cap is reached or the host asks, so its cost (the free
// lists' length, times a search) is rare. Without the memory to sort the slabs, it does
// nothing.
static void lk_pool_trim(lk_pool *pool) {
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

static void lk_pool_close(lk_pool *pool) {
  while (pool->slabs != NULL) {
    lk_slab *next = pool->slabs->next;
    free(pool->slabs);
    pool->slabs = next;
  }
  pool->slab_count = 0;
}

// Blocks from malloc that Lua shrank to a small size when no slab could be had: they must go
// back to malloc, not to a free list (they are in no slab). Only when malloc fails.
static int lk_take_orphan(lk_info *info, void *block) {
  for (int i = 0; i < info->orphan_count; i++) {
    if (info->orphans[i] != block) continue;
    info->orphans[i] = info->orphans[--info->orphan_count];
    return 1;
  }
  return 0;
}

// Frees a block of `size` bytes, wherever it came from.
static void lk_release(lk_info *info, void *block, size_t size) {
  if (size > LK_POOL_LARGEST) {
    free(block);
    info->large_bytes -= size;
  } else if (info->orphan_count != 0 && lk_take_orphan(info, block)) {
    free(block);
    info->large_bytes -= LK_POOL_LARGEST + 1;  // what it counted as (see lk_resize)
  } else {
    lk_pool_give(&info->pool, block, size);
  }
}

// A block of `size` bytes holding the first bytes of `block` (of `old` bytes, or NULL).
static void *lk_resize(lk_info *info, void *block, size_t old, size_t size, int group) {
  lk_pool *pool = &info->pool;
  if (size > LK_POOL_LARGEST) {
    if (block != NULL && old > LK_POOL_LARGEST) {
      void *grown = realloc(block, size);
      if (grown != NULL) info->large_bytes = info->large_bytes - old + size;
      return grown;
    }
    void *large = malloc(size);
    if (large == NULL) return NULL;
    info->large_bytes += size;
    if (block != NULL) {
      memcpy(large, block, old);  // old < size here
      lk_release(info, block, old);
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
      if (info->orphan_count == LK_MAX_ORPHANS) {
        fprintf(stderr, "ComposableLua: out of memory (malloc failed for a 16 KiB slab)\n");
        abort();
      }
      info->orphans[info->orphan_count++] = block;
      info->large_bytes -= old - (LK_POOL_LARGEST + 1);
    }
    return block;
  }
  if (block != NULL) {
    memcpy(small, block, old < size ? old : size);
    lk_release(info, block, old);
  }
  return small;
}

// MARK: - Capped allocator

static size_t lk_held(const lk_info *info) {
  return info->large_bytes + info->pool.slab_count * (size_t)LK_POOL_SLAB;
}

// What the VM would hold once `block` (of `old` bytes) became `size` bytes.
static size_t lk_held_after(
    const lk_info *info, void *block, size_t old, size_t size, int group) {
  size_t held = lk_held(info);
  if (size > LK_POOL_LARGEST) {
    return held + size - (block != NULL && old > LK_POOL_LARGEST ? old : 0);
  }
  if (block != NULL && old <= LK_POOL_LARGEST && lk_pool_class(old) == lk_pool_class(size))
    return held;
  return lk_pool_needs_slab(&info->pool, size, group) ? held + LK_POOL_SLAB : held;
}

static void lk_count_hook(lua_State *L, lua_Debug *ar);

// Bytes allocated during a call count against its budget, one instruction each 64 bytes: the
// work of building strings and tables in C (string.rep, concatenation, string.upper, ...)
// is bounded by the budget too, not only by the memory cap. The allocator cannot raise, so a
// spent budget arms the hook to raise at the next instruction (coroutines have it already).
static inline void lk_charge_allocation(lk_info *info, size_t bytes) {
  info->instructions_used += (int64_t)(bytes >> 6);
  if (info->instructions_used <= info->instruction_limit || info->stopped) return;
  lk_stop(info->main, LK_FAILURE_INSTRUCTION_LIMIT);
}

static void *lk_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  lk_info *info = (lk_info *)ud;
  size_t old = ptr ? osize : 0;  // when ptr is NULL, osize is a type tag, not a size
  int group = ptr ? LK_POOL_OBJECTS : lk_pool_group(osize);
  if (nsize == 0) {
    if (ptr != NULL) lk_release(info, ptr, old);
    info->memory_used -= old;
    return NULL;
  }
  if (nsize > old && info->enforce_memory && info->memory_limit != 0 &&
      lk_held_after(info, ptr, old, nsize, group) > info->memory_limit) {
    lk_pool_trim(&info->pool);
    if (lk_held_after(info, ptr, old, nsize, group) > info->memory_limit) {
      info->last_failure = LK_FAILURE_MEMORY_LIMIT;
      return NULL;  // Lua collects garbage, retries once, then raises LUA_ERRMEM
    }
  }
  void *block = lk_resize(info, ptr, old, nsize, group);
  if (block == NULL) return NULL;
  info->memory_used = info->memory_used - old + nsize;
  if (info->charging) {  // a top-level call with a budget is in flight
    if (nsize > old) lk_charge_allocation(info, nsize - old);
    if (atomic_load_explicit(info->arm_request, memory_order_relaxed) && info->watching &&
        lk_watch_arm_requested(info->watch_slot)) {
      info->main_hooked = 1;
      lk_arm_instruction_budget(info->main);  // the watchdog's signal did not get through
    }
  }
  return block;
}

void lk_release_free_memory(lua_State *L) {
  lk_pool_trim(&lk_info_of(L)->pool);
#ifdef __GLIBC__
  malloc_trim(0);  // what the slabs and Lua's large blocks left free inside malloc's heap
#endif
}

static int lk_traceback(lua_State *L);

static int lk_panic(lua_State *L) {
  const char *message = lua_tostring(L, -1);
  fprintf(stderr, "ComposableLua: unprotected Lua error (a bug in the host): %s\n",
          message ? message : "(no message)");
  abort();
}

lua_State *lk_newstate(size_t memory_limit) {
  lk_info *info = calloc(1, sizeof(lk_info));
  if (info == NULL) return NULL;
  info->memory_limit = memory_limit;
  lua_State *L = lua_newstate(lk_alloc, info);
  if (L == NULL) {
    lk_pool_close(&info->pool);
    free(info);
    return NULL;
  }
  *(lk_info **)lua_getextraspace(L) = info;
  info->main = L;
  info->watch_slot = lk_watch_claim(L, lk_arm_instruction_budget, lk_stop_for_time);
  static _Atomic int never_requested;
  info->arm_request = info->watch_slot >= 0 ? lk_watch_arm_request(info->watch_slot)
                                            : &never_requested;
  lua_atpanic(L, lk_panic);
  lk_open_libraries(L);
  // Generational collection: a feature's state is large and long-lived, and each action makes
  // a little short-lived garbage (the action table). In incremental mode every cycle marks the
  // whole state, so the cost per action grew with the state; young collections do not.
  lua_gc(L, LUA_GCGEN, 0, 0);
  // string.dump turns functions into bytecode; nothing here needs it, and string values reach
  // the real string table through their metatable, so it goes from the real table.
  lua_getglobal(L, "string");
  lua_pushnil(L);
  lua_setfield(L, -2, "dump");
  lua_pop(L, 1);
  // The traceback handler stays in the main thread's first stack slot for the state's life,
  // so a protected call from the host names it there instead of inserting it each time.
  lua_pushcfunction(L, lk_traceback);
  return L;
}

void lk_close(lua_State *L) {
  lk_info *info = lk_info_of(L);
  lua_close(L);
  if (info->watch_slot >= 0) lk_watch_release(info->watch_slot);
  lk_pool_close(&info->pool);
  free(info->name_slots);
  free(info);
}

void lk_set_memory_limit(lua_State *L, size_t bytes) { lk_info_of(L)->memory_limit = bytes; }
size_t lk_memory_limit(lua_State *L) { return lk_info_of(L)->memory_limit; }
size_t lk_memory_used(lua_State *L) { return lk_info_of(L)->memory_used; }
size_t lk_memory_held(lua_State *L) { return lk_held(lk_info_of(L)); }

void lk_reserve_memory(lua_State *L, size_t bytes) {
  lk_info *info = lk_info_of(L);
  if (!info->enforce_memory || info->memory_limit == 0) return;
  size_t held = lk_held(info);
  if (held < info->memory_limit && bytes <= info->memory_limit - held) return;
  // Over what is left: ask for it as Lua would, so the cap refuses it the usual way (after an
  // emergency collection) and the error is the memory limit's.
  lua_newuserdatauv(L, bytes, 0);
  lua_pop(L, 1);
}

// MARK: - Instruction budget

// Pushes the error of the stop in effect, naming the Lua line at `level` (none when
// `level` < 0).
static void lk_push_stop_error(lua_State *L, lk_info *info, int level) {
  if (level >= 0) luaL_where(L, level);
  else lua_pushliteral(L, "");
  switch (info->stopped) {
    case LK_FAILURE_TIME_LIMIT:
      lua_pushfstring(L, "time limit of %f seconds exceeded", (lua_Number)info->time_limit);
      break;
    default:
      lua_pushfstring(L, "instruction limit of %I exceeded", (lua_Integer)info->instruction_limit);
  }
  lua_concat(L, 2);
}

int lk_raise_stop(lua_State *L, int level) {
  lk_push_stop_error(L, lk_info_of(L), level);
  return lua_error(L);
}

void lk_stop(lua_State *L, lk_failure reason) {
  lk_info *info = lk_info_of(L);
  if (info->stopped == LK_FAILURE_NONE) info->stopped = reason;
  // Every thread the call may run on raises at its next instruction: the one that stopped,
  // the one the call entered on and the main thread (whose hook lk_leave takes off).
  lua_sethook(L, lk_count_hook, LUA_MASKCOUNT, 1);
  if (info->entered != NULL && info->entered != L) {
    lua_sethook(info->entered, lk_count_hook, LUA_MASKCOUNT, 1);
  }
  if (info->main != L) lua_sethook(info->main, lk_count_hook, LUA_MASKCOUNT, 1);
  info->main_hooked = 1;
}

// A state with no watchdog slot (more states than slots) times its own calls: its hook and
// charged library calls stop the call once it has run past its time.
static inline void lk_check_unwatched_time(lua_State *L, lk_info *info) {
  if (info->watch_slot >= 0 || info->time_limit == 0 || info->stopped) return;
  if (lk_monotonic_ns() - info->call_started_ns > (int64_t)(info->time_limit * 1e9)) {
    lk_stop(L, LK_FAILURE_TIME_LIMIT);
  }
}

void lk_caught(lua_State *L) {
  lk_info *info = lk_info_of(L);
  if (info->call_depth != 0 && info->stopped) lk_raise_stop(L, 1);
}

static void lk_count_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  lk_info *info = lk_info_of(L);
  if (info->call_depth == 0) return;
  // Where the watchdog's signal is held back, the hook asks what it would have said: stop for
  // time (which sets the stop, below), or nothing.
  if (LK_SIGNALS_HELD_BACK && info->watching) lk_watch_arm_requested(info->watch_slot);
  lk_check_unwatched_time(L, info);
  if (!info->stopped) {
    if (info->instruction_limit == 0) return;
    info->instructions_used += lua_gethookcount(L);
    if (info->instructions_used <= info->instruction_limit) {
      if (lua_gethookcount(L) != lk_hook_granularity)
        lua_sethook(L, lk_count_hook, LUA_MASKCOUNT, lk_hook_granularity);
      return;
    }
    lk_stop(L, LK_FAILURE_INSTRUCTION_LIMIT);
  }
  // From now on every instruction raises, so a `pcall` in the script cannot swallow the stop:
  // each frame fails at its first instruction until the error reaches lk_pcall. Inside a hook,
  // level 0 is the Lua function that was running: name its line.
  lua_sethook(L, lk_count_hook, LUA_MASKCOUNT, 1);
  lk_raise_stop(L, 0);
}

void lk_stop_for_time(lua_State *L) { lk_stop(L, LK_FAILURE_TIME_LIMIT); }

void lk_set_time_limit(lua_State *L, double seconds) {
  lk_info *info = lk_info_of(L);
  info->time_limit = seconds > 0 ? seconds : 0;
  if (info->watch_slot >= 0) lk_watch_set_time_limit(info->watch_slot, info->time_limit);
}

void lk_arm_instruction_budget(lua_State *L) {
  lua_sethook(L, lk_count_hook, LUA_MASKCOUNT, lk_hook_granularity);
}

void lk_charge(lua_State *L, lua_Integer work) {
  lk_info *info = lk_info_of(L);
  if (info->watching && lk_watch_arm_requested(info->watch_slot)) {
    info->main_hooked = 1;
    lk_arm_instruction_budget(info->main);
  }
  if (info->call_depth == 0) return;
  lk_check_unwatched_time(L, info);
  if (info->stopped) lk_raise_stop(L, 1);
  if (info->instruction_limit == 0 || work <= 0) return;
  if (work <= info->instruction_limit - info->instructions_used) {
    info->instructions_used += work;
    return;
  }
  lk_stop(L, LK_FAILURE_INSTRUCTION_LIMIT);  // as the hook does: nothing runs on
  lk_raise_stop(L, 1);
}

// The main thread gets the hook only for a call that runs long (see Watchdog.c); a coroutine
// gets it when made, and keeps it.
void lk_set_instruction_limit(lua_State *L, int64_t instructions) {
  lk_info *info = lk_info_of(L);
  info->instruction_limit = instructions < 0 ? 0 : instructions;
  if (info->instruction_limit == 0) lua_sethook(L, NULL, 0, 0);
}

int64_t lk_instruction_limit(lua_State *L) { return lk_info_of(L)->instruction_limit; }

int lk_main_thread_counts_instructions(lua_State *L) {
  return lua_gethook(lk_info_of(L)->main) != NULL;
}

// MARK: - Protected calls

// The longest error message a report keeps: a longer one is cut, so that building the report
// (which runs without the cap) copies a bounded amount.
enum { LK_MESSAGE_MAX = 16 * 1024 };

// Pushes the message at `index` of `from` onto L, cut to LK_MESSAGE_MAX bytes.
static const char *lk_push_bounded_message(lua_State *L, lua_State *from, int index) {
  size_t length = 0;
  const char *message = lua_tolstring(from, index, &length);
  if (length <= LK_MESSAGE_MAX) return lua_pushlstring(L, message, length);
  lua_pushlstring(L, message, LK_MESSAGE_MAX);
  lua_pushfstring(L, "... (%I more bytes)", (lua_Integer)(length - LK_MESSAGE_MAX));
  lua_concat(L, 2);
  return lua_tostring(L, -1);
}

static int lk_traceback(lua_State *L) {
  lk_info *info = lk_info_of(L);
  int type = lua_type(L, 1);
  int described = type == LUA_TSTRING || type == LUA_TNUMBER;
  if (!described && luaL_getmetafield(L, 1, "__tostring") != LUA_TNIL) {
    // The error object's own description: feature code, so under the cap and the budget like
    // any other (a spent budget makes it fail at once), and protected.
    lua_pushvalue(L, 1);
    if (lua_pcall(L, 1, 1, 0) == LUA_OK && lua_type(L, -1) == LUA_TSTRING) {
      lua_replace(L, 1);
      described = 1;
    }
  }
  // The report is built without the cap, which must not fail it, and is bounded instead: a cut
  // message and luaL_traceback's own cut of deep stacks. The cap comes back before Lua code
  // runs again (the __close handlers of the unwinding call run after this handler).
  int saved_enforce = info->enforce_memory;
  info->enforce_memory = 0;
  const char *message = described
      ? lk_push_bounded_message(L, L, 1)
      : lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  luaL_traceback(L, L, message, 1);
  info->enforce_memory = saved_enforce;
  return 1;
}

// Entering Lua from the host: at the top level the budget starts afresh (on `thread`, whose
// hook counts it), and the memory cap applies until `lk_leave`.
static inline __attribute__((always_inline)) int lk_enter(lua_State *L, lua_State *thread) {
  lk_info *info = lk_info_of(L);
  if (info->call_depth == 0) {
    info->instructions_used = 0;
    info->stopped = LK_FAILURE_NONE;
    info->charging = info->instruction_limit != 0;
    info->entered = thread;
    int counts = info->instruction_limit != 0;
    int on_main = thread == info->main;
    // The watchdog watches every top-level call that has a limit: it arms the count hook of
    // a long call on the main thread, and stops any call that runs past its time.
    int hook_now = LK_SIGNALS_HELD_BACK || !on_main;  // a coroutine counts from the start
    info->watching = (counts || info->time_limit != 0) && info->watch_slot >= 0 &&
                     lk_watch_begin(info->watch_slot, !counts || hook_now);
    int unwatched = info->watch_slot < 0 && info->time_limit != 0;
    if (unwatched) info->call_started_ns = lk_monotonic_ns();
    if ((counts || unwatched || (LK_SIGNALS_HELD_BACK && info->watching)) &&
        (hook_now || !info->watching)) {
      lk_arm_instruction_budget(thread);
      info->main_hooked = on_main;
    }
  }
  info->last_failure = LK_FAILURE_NONE;
  int saved_enforce = info->enforce_memory;
  info->enforce_memory = 1;
  info->call_depth += 1;
  return saved_enforce;
}

// Leaving Lua: notes why a failed call failed, beyond Lua's status code.
static inline __attribute__((always_inline)) void lk_leave(
    lua_State *L, int status, int saved_enforce) {
  lk_info *info = lk_info_of(L);
  info->call_depth -= 1;
  info->enforce_memory = saved_enforce;
  if (info->call_depth == 0) {
    info->charging = 0;
    if (info->watching && lk_watch_end(info->watch_slot)) info->main_hooked = 1;
    info->watching = 0;
    if (info->main_hooked) lua_sethook(info->main, NULL, 0, 0);
    info->main_hooked = 0;
  }
  if (status == LUA_OK || status == LUA_YIELD) {
    info->last_failure = LK_FAILURE_NONE;
  } else if (info->stopped) {
    info->last_failure = info->stopped;
  } else if (status == LUA_ERRMEM && info->memory_limit != 0) {
    info->last_failure = LK_FAILURE_MEMORY_LIMIT;
  }
}

// A call that was stopped (lk_stop) fails, even when Lua code caught the stop's error and the
// call returned: its results (from `base` up) are dropped for the stop's error.
static int lk_fail_stopped_call(lua_State *L, int status, int base) {
  lk_info *info = lk_info_of(L);
  if (status == LUA_OK || status == LUA_YIELD) {
    lua_settop(L, base);
    int saved_enforce = info->enforce_memory;
    info->enforce_memory = 0;
    lk_push_stop_error(L, info, -1);
    lua_pushliteral(L, " (the error was caught in Lua, but a limit ends the whole call)");
    lua_concat(L, 2);
    info->enforce_memory = saved_enforce;
  }
  return status == LUA_OK || status == LUA_YIELD ? LUA_ERRRUN : status;
}

int lk_pcall(lua_State *L, int nargs, int nresults) {
  // The handler in slot 1 (see lk_newstate) when this is the main thread; otherwise, pushed
  // below the function and removed after.
  // The top is read once: below the function is where a stopped call's results are dropped.
  int top = lua_gettop(L);
  int resident = top > nargs + 1 && lua_tocfunction(L, 1) == lk_traceback;
  int handler = 1;
  if (!resident) {
    handler = top - nargs;
    lua_pushcfunction(L, lk_traceback);
    lua_insert(L, handler);
    top += 1;
  }
  int base = top - nargs - 1;  // below the function
  int saved_enforce = lk_enter(L, L);
  int status = lua_pcall(L, nargs, nresults, handler);
  if (__builtin_expect(lk_info_of(L)->stopped != LK_FAILURE_NONE, 0)) {
    status = lk_fail_stopped_call(L, status, base);
  }
  lk_leave(L, status, saved_enforce);
  if (!resident) lua_remove(L, handler);
  return status;
}

lk_failure lk_last_failure(lua_State *L) { return lk_info_of(L)->last_failure; }

int lk_resume(lua_State *L, lua_State *co, int nargs, int *nresults) {
  int saved_enforce = lk_enter(L, co);
  int status = lua_resume(co, L, nargs, nresults);
  if (status != LUA_OK && status != LUA_YIELD) {
    // The coroutine's stack is still there: describe the error with its traceback, without
    // the memory cap (building the report must not fail for want of memory), bounded.
    lk_info_of(L)->enforce_memory = 0;
    int type = lua_type(co, -1);
    const char *message = type == LUA_TSTRING || type == LUA_TNUMBER
        ? lk_push_bounded_message(L, co, -1)
        : lua_pushfstring(L, "(error object is a %s value)", luaL_typename(co, -1));
    luaL_traceback(L, co, message, 0);
    lua_remove(L, -2);
  }
  if (__builtin_expect(lk_info_of(L)->stopped != LK_FAILURE_NONE, 0)) {
    if (status == LUA_OK || status == LUA_YIELD) {
      lua_pop(co, *nresults);
      *nresults = 0;
    }
    status = lk_fail_stopped_call(L, status, lua_gettop(L));
  }
  lk_leave(L, status, saved_enforce);
  return status;
}

int lk_close_coroutine(lua_State *L, lua_State *co) {
  int before = lua_status(co);
  int failed = before != LUA_OK && before != LUA_YIELD;
  // A coroutine that had failed is closed with its error, which it then still holds: that is
  // no new failure. A __close handler that raised is one (its error replaces the first), so
  // the first is kept here to tell them apart.
  int original = 0;
  if (failed && lua_gettop(co) > 0 && lua_checkstack(L, 2)) {
    lua_pushvalue(co, -1);
    lua_xmove(co, L, 1);
    original = lua_gettop(L);
  }
  int saved_enforce = lk_enter(L, co);
  int status = lua_resetthread(co);  // runs its pending __close handlers
  if (status != LUA_OK && failed && original != 0 && lua_gettop(co) > 0) {
    lua_xmove(co, L, 1);
    int same = lua_rawequal(L, -1, original);
    lua_xmove(L, co, 1);
    if (same) status = LUA_OK;
  }
  if (original != 0) lua_remove(L, original);
  if (status != LUA_OK) {
    lk_info_of(L)->enforce_memory = 0;
    int type = lua_type(co, -1);
    if (type == LUA_TSTRING || type == LUA_TNUMBER) lk_push_bounded_message(L, co, -1);
    else lua_pushfstring(L, "(error object is a %s value)", luaL_typename(co, -1));
  }
  lua_settop(co, 0);
  if (__builtin_expect(lk_info_of(L)->stopped != LK_FAILURE_NONE, 0)) {
    status = lk_fail_stopped_call(L, status, lua_gettop(L));
  }
  lk_leave(L, status, saved_enforce);
  return status;
}

// MARK: - Loading source

void lk_charge_source(lua_State *L, size_t bytes, int64_t started_ns) {
  lk_info *info = lk_info_of(L);
  if (info->call_depth != 0) {
    lk_charge(L, (lua_Integer)(bytes / LK_SOURCE_BYTES_PER_INSTRUCTION));
    return;
  }
  if (info->time_limit != 0 &&
      lk_monotonic_ns() - started_ns > (int64_t)(info->time_limit * 1e9)) {
    luaL_error(L, "reading this source took longer than the time limit of %f seconds",
               (lua_Number)info->time_limit);
  }
}

typedef struct {
  const char *rest;  // what the parser has not been given yet
  size_t length;
  int64_t started_ns;
} lk_source_pieces;

static const char *lk_next_source_piece(lua_State *L, void *data, size_t *size) {
  lk_source_pieces *pieces = data;
  if (pieces->length == 0) return NULL;
  *size = pieces->length < LK_SOURCE_PIECE ? pieces->length : LK_SOURCE_PIECE;
  lk_charge_source(L, *size, pieces->started_ns);
  const char *piece = pieces->rest;
  pieces->rest += *size;
  pieces->length -= *size;
  return piece;
}

// The source goes to the parser in pieces (see LK_SOURCE_PIECE), under the memory cap: a
// source a feature could not hold in its state is not one it may have parsed either.
int lk_loadtext(lua_State *L, const char *source, size_t length, const char *chunkname) {
  lk_info *info = lk_info_of(L);
  lk_source_pieces pieces = {source, length, lk_monotonic_ns()};
  int saved_enforce = info->enforce_memory;
  info->enforce_memory = 1;
  int status = lua_load(L, lk_next_source_piece, &pieces, chunkname, "t");
  info->enforce_memory = saved_enforce;
  return status;
}

int lk_loadbinary(lua_State *L, const unsigned char *bytecode, size_t length) {
  return luaL_loadbufferx(L, (const char *)bytecode, length, "=bytecode", "b");
}

// MARK: - Host functions

typedef struct {
  lk_host_callback callback;
  lk_host_release release;
  void *context;
} lk_host_function;

static int lk_host_function_gc(lua_State *L) {
  lk_host_function *function = lua_touserdata(L, 1);
  if (function->release != NULL && function->context != NULL) function->release(function->context);
  function->context = NULL;
  return 0;
}

static int lk_trampoline(lua_State *L) {
  lk_host_function *function = lua_touserdata(L, lua_upvalueindex(1));
  lk_info *info = lk_info_of(L);
  // Swift code runs without the memory cap so that no allocation raises inside a Swift frame.
  int saved_enforce = info->enforce_memory;
  info->enforce_memory = 0;
  int results = function->callback(L, function->context);
  info->enforce_memory = saved_enforce;
  if (results < 0) {  // the Swift side pushed the message; name the Lua line that called
    luaL_where(L, 1);
    lua_insert(L, -2);
    lua_concat(L, 2);
    return lua_error(L);
  }
  return results;
}

void lk_push_host_function(
    lua_State *L, lk_host_callback callback, lk_host_release release, void *context) {
  lk_host_function *function = lua_newuserdatauv(L, sizeof(lk_host_function), 0);
  function->callback = callback;
  function->release = release;
  function->context = context;
  if (luaL_newmetatable(L, "luakit.host_function")) {
    lua_pushcfunction(L, lk_host_function_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
  }
  lua_setmetatable(L, -2);
  lua_pushcclosure(L, lk_trampoline, 1);
}

void lk_set_owner(lua_State *L, void *owner) { lk_info_of(L)->owner = owner; }
void *lk_owner(lua_State *L) { return lk_info_of(L)->owner; }
