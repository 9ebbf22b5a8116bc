// The bookkeeping beside each state (lk_info), made of one part a module: each part is defined
// in its module's private header and written only by that module (and the inline functions of
// its header); other modules may read it. A pointer to it lives in the state's extra space,
// which Lua copies into every coroutine, so the hook and the trampoline reach it from any
// thread. Every C file that reaches lk_info includes this header, which includes every module's
// private header (Pool.c, Watchdog.c and ActionTags.c need no state, and include less).
#ifndef LK_LUA_STATE_H
#define LK_LUA_STATE_H

#include "LuaSupport.h"

#include "Allocator.h"
#include "ArrayShifts.h"
#include "Budget.h"
#include "CoroutineLibrary.h"
#include "HiddenKeys.h"
#include "Journal.h"
#include "Libraries.h"
#include "Load.h"
#include "Names.h"
#include "Pool.h"
#include "ProtectedCall.h"
#include "ReadingFunctions.h"
#include "StateShape.h"
#include "Transaction.h"
#include "Watchdog.h"

typedef struct {
  lua_State *main;  // the state's main thread (LuaState.c)
  void *owner;      // whatever the host reaches from a callback (LuaState.c)
  // Why the last protected call failed. The one field two modules write: ProtectedCall.c, from
  // each call's outcome, and Allocator.c when the cap refuses a block (what a failure that is
  // not ERRMEM by the time it returns, or a capped lk_loadtext, reports).
  lk_failure last_failure;
  lk_calls calls;               // ProtectedCall.c
  lk_budget budget;             // Budget.c
  lk_journal journal;           // Journal.c
  lk_transaction transaction;   // Transaction.c
  lk_shape shape;               // StateShape.c
  lk_coroutines coroutines;     // CoroutineLibrary.c
  lk_names names;               // Names.c
  // Last: its list of orphans (see lk_resize) is long and rarely read, and ends the struct.
  lk_memory memory;             // Allocator.c, with its pool (Pool.c)
} lk_info;

static inline lk_info *lk_info_of(lua_State *L) {
  return *(lk_info **)lua_getextraspace(L);
}

// The parts, for the inline functions of the modules' headers (declared there).
static inline lk_memory *lk_memory_of(lua_State *L) { return &lk_info_of(L)->memory; }
static inline lk_budget *lk_budget_of(lua_State *L) { return &lk_info_of(L)->budget; }
static inline lk_journal *lk_journal_of(lua_State *L) { return &lk_info_of(L)->journal; }

/// Pushes a new table with weak keys: a set that does not keep its members alive.
static inline void lk_push_weak_keyed_table(lua_State *L) {
  lua_newtable(L);
  lua_createtable(L, 0, 1);
  lua_pushliteral(L, "k");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
}

#endif
