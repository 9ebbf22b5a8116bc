// What the C files of LuaSupport share about a state; not part of the public header.
#ifndef LUA_SUPPORT_STATE_H
#define LUA_SUPPORT_STATE_H

#include "LuaSupport.h"

// Small blocks of a state, by 16-byte size class up to 256 bytes (see LuaSupport.c).
enum { LK_POOL_GRANULE = 16, LK_POOL_CLASSES = 16, LK_POOL_SLAB = 64 * 1024 };

typedef struct lk_free_block {
  struct lk_free_block *next;
} lk_free_block;

typedef struct {
  lk_free_block *free[LK_POOL_CLASSES];  // freed blocks, one list a class
  char *cursor;                          // the unused rest of the newest slab
  char *end;
  void *slabs;  // every slab, linked through its first word
} lk_pool;

// Bookkeeping beside each state. A pointer to it lives in the state's extra space, which Lua
// copies into every coroutine, so the hook and the trampoline reach it from any thread.
typedef struct {
  size_t memory_used;
  size_t memory_limit;         // 0: no cap
  int enforce_memory;          // the cap applies only while Lua code runs under lk_pcall
  int64_t instruction_limit;   // 0: no budget
  int64_t instructions_used;
  int budget_exhausted;
  int call_depth;              // nesting of lk_pcall; the budget is per top-level call
  lk_failure last_failure;
  void *owner;
  lua_Integer journal_length;  // entries (three slots each) in the transaction journal
  lk_pool pool;
  lua_State *main;     // the state's main thread
  int watch_slot;      // the state's slot in the watchdog's table, or -1 (Watchdog.c)
  int watching;        // the watchdog watches the call in flight on `main`
  int main_hooked;     // the count hook is on `main` for this call
  int type_string_ref; // registry slot of the string "type", or 0 until first needed
} lk_info;

static inline lk_info *lk_info_of(lua_State *L) {
  return *(lk_info **)lua_getextraspace(L);
}

// The instruction budget (LuaSupport.c, Watchdog.c).
void lk_arm_instruction_budget(lua_State *L);
int lk_watch_claim(lua_State *L);
void lk_watch_release(int slot);
int lk_watch_begin(int slot);
int lk_watch_end(int slot);

#endif
