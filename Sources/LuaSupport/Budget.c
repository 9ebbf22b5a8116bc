// The instruction budget and the time limit of a top-level call: the count hook that counts
// instructions, the charges C functions make for the work they do, and the stop that ends a
// call past either limit. The watchdog (Watchdog.c) arms the hook of a call that runs long and
// stops one past its time, through the two functions lk_budget_open gives it.
#include "LuaState.h"

void lk_push_stop_error(lua_State *L, int level) {
  lk_budget *budget = lk_budget_of(L);
  if (level >= 0) luaL_where(L, level);
  else lua_pushliteral(L, "");
  switch (budget->stopped) {
    case LK_FAILURE_TIME_LIMIT:
      lua_pushfstring(L, "time limit of %f seconds exceeded", (lua_Number)budget->time_limit);
      break;
    default:
      lua_pushfstring(
          L, "instruction limit of %I exceeded", (lua_Integer)budget->instruction_limit);
  }
  lua_concat(L, 2);
}

int lk_raise_stop(lua_State *L, int level) {
  lk_push_stop_error(L, level);
  return lua_error(L);
}

void lk_stop(lua_State *L, lk_failure reason) {
  lk_info *info = lk_info_of(L);
  lk_budget *budget = &info->budget;
  if (budget->stopped == LK_FAILURE_NONE) budget->stopped = reason;
  // Every thread the call may run on raises at its next instruction: the one that stopped,
  // the one the call entered on and the main thread (whose hook lk_leave takes off).
  lua_sethook(L, lk_count_hook, LUA_MASKCOUNT, 1);
  if (budget->entered != NULL && budget->entered != L) {
    lua_sethook(budget->entered, lk_count_hook, LUA_MASKCOUNT, 1);
  }
  if (info->main != L) lua_sethook(info->main, lk_count_hook, LUA_MASKCOUNT, 1);
  budget->main_hooked = 1;
}

// A state with no watchdog slot (more states than slots) times its own calls: its hook and
// charged library calls stop the call once it has run past its time.
static inline void lk_check_unwatched_time(lua_State *L, lk_budget *budget) {
  if (budget->watch_slot >= 0 || budget->time_limit == 0 || budget->stopped) return;
  if (lk_monotonic_ns() - budget->call_started_ns > (int64_t)(budget->time_limit * 1e9)) {
    lk_stop(L, LK_FAILURE_TIME_LIMIT);
  }
}

void lk_caught(lua_State *L) {
  lk_info *info = lk_info_of(L);
  if (info->calls.depth != 0 && info->budget.stopped) lk_raise_stop(L, 1);
}

void lk_count_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  lk_info *info = lk_info_of(L);
  lk_budget *budget = &info->budget;
  if (info->calls.depth == 0) return;
  // Where the watchdog's signal is held back, the hook asks what it would have said: stop for
  // time (which sets the stop, below), or nothing.
  if (LK_SIGNALS_HELD_BACK && budget->watching) lk_watch_arm_requested(budget->watch_slot);
  lk_check_unwatched_time(L, budget);
  if (!budget->stopped) {
    if (budget->instruction_limit == 0) return;
    budget->instructions_used += lua_gethookcount(L);
    if (budget->instructions_used <= budget->instruction_limit) {
      if (lua_gethookcount(L) != LK_HOOK_GRANULARITY)
        lua_sethook(L, lk_count_hook, LUA_MASKCOUNT, LK_HOOK_GRANULARITY);
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

// What the watchdog calls (from its signal handler, or from lk_watch_arm_requested) when the
// call in flight ran past its time: given to it with lk_arm_instruction_budget in
// lk_budget_open, so the watchdog calls nothing here by name.
static void lk_stop_for_time(lua_State *L) { lk_stop(L, LK_FAILURE_TIME_LIMIT); }

void lk_set_time_limit(lua_State *L, double seconds) {
  lk_budget *budget = lk_budget_of(L);
  budget->time_limit = seconds > 0 ? seconds : 0;
  if (budget->watch_slot >= 0) lk_watch_set_time_limit(budget->watch_slot, budget->time_limit);
}

void lk_charge(lua_State *L, lua_Integer work) {
  lk_info *info = lk_info_of(L);
  lk_budget *budget = &info->budget;
  if (budget->watching && lk_watch_arm_requested(budget->watch_slot)) {
    budget->main_hooked = 1;
    lk_arm_instruction_budget(info->main);
  }
  if (info->calls.depth == 0) return;
  lk_check_unwatched_time(L, budget);
  if (budget->stopped) lk_raise_stop(L, 1);
  if (budget->instruction_limit == 0 || work <= 0) return;
  if (work <= budget->instruction_limit - budget->instructions_used) {
    budget->instructions_used += work;
    return;
  }
  lk_stop(L, LK_FAILURE_INSTRUCTION_LIMIT);  // as the hook does: nothing runs on
  lk_raise_stop(L, 1);
}

// The main thread gets the hook only for a call that runs long (see Watchdog.c); a coroutine
// gets it when made, and keeps it.
void lk_set_instruction_limit(lua_State *L, int64_t instructions) {
  lk_budget *budget = lk_budget_of(L);
  budget->instruction_limit = instructions < 0 ? 0 : instructions;
  if (budget->instruction_limit == 0) lua_sethook(L, NULL, 0, 0);
}

int64_t lk_instruction_limit(lua_State *L) { return lk_info_of(L)->budget.instruction_limit; }

int lk_main_thread_counts_instructions(lua_State *L) {
  return lua_gethook(lk_info_of(L)->main) != NULL;
}

void lk_budget_open(lua_State *L) {
  lk_budget *budget = lk_budget_of(L);
  budget->watch_slot = lk_watch_claim(L, lk_arm_instruction_budget, lk_stop_for_time);
  static _Atomic int never_requested;
  budget->arm_request = budget->watch_slot >= 0 ? lk_watch_arm_request(budget->watch_slot)
                                                : &never_requested;
}

void lk_budget_close(lk_budget *budget) {
  if (budget->watch_slot >= 0) lk_watch_release(budget->watch_slot);
}
