// The instruction budget and the time limit of a top-level call (Budget.c): the count hook,
// the charges of C functions and allocations, and the stop that ends a call past a limit. The
// watchdog (Watchdog.c) arms the hook of a call that runs long, through what Budget.c gives it.
#ifndef LK_BUDGET_H
#define LK_BUDGET_H

#include <stdatomic.h>

#include "LuaSupport.h"
#include "Watchdog.h"

// ThreadSanitizer holds a signal back until its thread calls a function it intercepts, which a
// loop in Lua never does: the watchdog's signal would never stop such a loop. Built with it, a
// call counts its instructions from the first one, and the count hook asks the watchdog what
// its signal would have said (see lk_count_hook).
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define LK_SIGNALS_HELD_BACK 1
#endif
#endif
#ifndef LK_SIGNALS_HELD_BACK
#define LK_SIGNALS_HELD_BACK 0
#endif

// The budget's part of lk_info, written only by Budget.c and the inline functions below.
typedef struct {
  int64_t instruction_limit;  // 0: no budget
  int64_t instructions_used;
  // Why the call in flight was stopped (its budget spent, its time up), or LK_FAILURE_NONE. A
  // stop is final for the whole top-level call: every instruction after it raises, every place
  // that catches an error raises it again, and the call fails even when Lua code caught the
  // error (see lk_stop). The memory cap is not a stop: its error is Lua's own, and Lua code may
  // catch it and go on (docs/transactions.md says why).
  lk_failure stopped;
  double time_limit;  // seconds a top-level call may run, 0: none
  // When the call in flight began, for a state with no watchdog slot: its own hook and charges
  // look at the clock instead (lk_check_unwatched_time).
  int64_t call_started_ns;
  lua_State *entered;  // the thread the call in flight entered on
  int charging;        // a top-level call with a budget is in flight: allocations count
  int watch_slot;      // the state's slot in the watchdog's table, or -1 (Watchdog.c)
  _Atomic int *arm_request;  // the slot's request to arm the hook, read on every allocation
  int watching;        // the watchdog watches the call in flight on `main`
  int main_hooked;     // the count hook is on `main` for this call
} lk_budget;

// The state's part (defined in LuaState.h, which has the whole of lk_info).
static inline lk_budget *lk_budget_of(lua_State *L);

/// Claims the state's watchdog slot, giving the watchdog what it does to a call (lk_newstate).
void lk_budget_open(lua_State *L);
/// Gives the slot back (lk_close).
void lk_budget_close(lk_budget *budget);
// The hook runs every `granularity` instructions: cheap, and precise enough for a budget.
enum { LK_HOOK_GRANULARITY = 1000 };
/// The count hook: counts the budget, looks at the time, and raises the stop.
void lk_count_hook(lua_State *L, lua_Debug *ar);
/// Puts the count hook on `L` (a thread of the state). Inline: lk_enter arms a coroutine's hook
/// on every top-level resume, and lua_sethook may be called from the watchdog's signal handler.
static inline void lk_arm_instruction_budget(lua_State *L) {
  lua_sethook(L, lk_count_hook, LUA_MASKCOUNT, LK_HOOK_GRANULARITY);
}
/// Stops the call in flight for `reason` (its budget or its time): from now on every instruction
/// of every thread it runs raises the limit's error, and the call fails whatever catches it.
void lk_stop(lua_State *L, lk_failure reason);
/// Pushes the error of the stop in effect, naming the Lua line at `level` (none when
/// `level` < 0).
void lk_push_stop_error(lua_State *L, int level);
/// Raises the error of the stop in effect (lk_stop), naming the Lua line at `level`.
int lk_raise_stop(lua_State *L, int level);
/// For C code that caught an error (a pcall or resume of its own), or is about to return to
/// Lua code: a stop in effect is raised again at once, so no catch lets Lua code go on past a
/// limit.
void lk_caught(lua_State *L);
/// Charges `work` units (instructions, or elements and bytes a C function goes through) to
/// the budget of the call in flight, raising the instruction limit error when it is spent.
void lk_charge(lua_State *L, lua_Integer work);

/// Why the call in flight was stopped, or LK_FAILURE_NONE (for other modules, which only read).
static inline lk_failure lk_stopped(lua_State *L) { return lk_budget_of(L)->stopped; }
/// Whether a call on the state has a limit a coroutine's hook must count for.
static inline int lk_budget_limits_calls(lua_State *L) {
  lk_budget *budget = lk_budget_of(L);
  return budget->instruction_limit != 0 || budget->time_limit != 0;
}

// A top-level call begins on `thread` of the state whose main thread is `main`: the budget
// starts afresh, on `thread`, whose hook counts it. Inline: lk_enter runs it on every call.
static inline __attribute__((always_inline)) void lk_budget_begin(
    lk_budget *budget, lua_State *main, lua_State *thread) {
  budget->instructions_used = 0;
  budget->stopped = LK_FAILURE_NONE;
  budget->charging = budget->instruction_limit != 0;
  budget->entered = thread;
  int counts = budget->instruction_limit != 0;
  int on_main = thread == main;
  // The watchdog watches every top-level call that has a limit: it arms the count hook of
  // a long call on the main thread, and stops any call that runs past its time.
  int hook_now = LK_SIGNALS_HELD_BACK || !on_main;  // a coroutine counts from the start
  budget->watching = (counts || budget->time_limit != 0) && budget->watch_slot >= 0 &&
                     lk_watch_begin(budget->watch_slot, !counts || hook_now);
  int unwatched = budget->watch_slot < 0 && budget->time_limit != 0;
  if (unwatched) budget->call_started_ns = lk_monotonic_ns();
  if ((counts || unwatched || (LK_SIGNALS_HELD_BACK && budget->watching)) &&
      (hook_now || !budget->watching)) {
    lk_arm_instruction_budget(thread);
    budget->main_hooked = on_main;
  }
}

// Code of the call in flight is to run on `thread`, another thread than the one it entered on
// (a failed coroutine's error object described on the thread that resumed it): the budget is
// counted there too, from its first instruction, and a main thread's hook is taken off at the
// end of the call as always.
static inline void lk_budget_count_on(lk_budget *budget, lua_State *main, lua_State *thread) {
  if (budget->instruction_limit == 0 && budget->time_limit == 0) return;
  lk_arm_instruction_budget(thread);
  if (thread == main) budget->main_hooked = 1;
}

// The top-level call ended: the main thread loses the hook it got for it. Inline, as
// lk_budget_begin.
static inline __attribute__((always_inline)) void lk_budget_end(
    lk_budget *budget, lua_State *main) {
  budget->charging = 0;
  if (budget->watching && lk_watch_end(budget->watch_slot)) budget->main_hooked = 1;
  budget->watching = 0;
  if (budget->main_hooked) lua_sethook(main, NULL, 0, 0);
  budget->main_hooked = 0;
}

// Bytes allocated during a call count against its budget, one instruction each 64 bytes: the
// work of building strings and tables in C (string.rep, concatenation, string.upper, ...)
// is bounded by the budget too, not only by the memory cap. The allocator cannot raise, so a
// spent budget arms the hook to raise at the next instruction (coroutines have it already).
static inline void lk_charge_allocation(lk_budget *budget, lua_State *main, size_t bytes) {
  budget->instructions_used += (int64_t)(bytes >> 6);
  if (budget->instructions_used <= budget->instruction_limit || budget->stopped) return;
  lk_stop(main, LK_FAILURE_INSTRUCTION_LIMIT);
}

// What the allocator tells the budget of each block it gave (`old` bytes that became `size`):
// inline, on the path of every allocation, and nothing to do outside a call with a budget.
static inline void lk_budget_note_allocation(
    lk_budget *budget, lua_State *main, size_t old, size_t size) {
  if (budget->charging) {  // a top-level call with a budget is in flight
    if (size > old) lk_charge_allocation(budget, main, size - old);
    if (atomic_load_explicit(budget->arm_request, memory_order_relaxed) && budget->watching &&
        lk_watch_arm_requested(budget->watch_slot)) {
      budget->main_hooked = 1;
      lk_arm_instruction_budget(main);  // the watchdog's signal did not get through
    }
  }
}

#endif
