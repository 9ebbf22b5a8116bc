// The instruction budget and the time limit of a call (Budget.c).
#ifndef LUA_SUPPORT_BUDGET_H
#define LUA_SUPPORT_BUDGET_H

#include "LuaSupportShims.h"

/// Instructions one top-level `lk_pcall` may run (0: unlimited).
void lk_set_instruction_limit(lua_State *L, int64_t instructions);
int64_t lk_instruction_limit(lua_State *L);
/// Seconds one top-level `lk_pcall` may run (0: no limit), whatever it runs: the backstop of the
/// instruction budget for work no count sees (comparing long strings, say). Checked by the
/// watchdog, so a call stops within a look (5 to 100 ms) after its time.
void lk_set_time_limit(lua_State *L, double seconds);
/// Whether the main thread has the count hook now (between calls: only while a call that ran
/// long is in flight, see Watchdog.c).
int lk_main_thread_counts_instructions(lua_State *L);

#endif
