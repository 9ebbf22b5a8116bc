// The watchdog (Watchdog.c): a thread that arms the count hook of a call that runs long and
// stops one past its time. It calls nothing of the budget's by name: a state gives it, when it
// claims a slot, what to call.
#ifndef LK_WATCHDOG_H
#define LK_WATCHDOG_H

#include <stdatomic.h>
#include <stdint.h>

#include "LuaSupport.h"

/// What the watchdog does to the call in flight on a state, given when the state claims its
/// slot (so the watchdog calls nothing of the budget's by name): arm its count hook, or stop it
/// for its time. Both may be called from the watchdog's signal handler, on the call's thread.
typedef void (*lk_watch_action)(lua_State *L);
/// A slot for the state whose main thread is `L`, or -1 when none is free.
int lk_watch_claim(lua_State *L, lk_watch_action arm, lk_watch_action stop_for_time);
void lk_watch_release(int slot);
/// A call begins on the slot's state; `armed`: it counts its budget already (or has none).
int lk_watch_begin(int slot, int armed);
void lk_watch_set_time_limit(int slot, double seconds);
int lk_watch_end(int slot);
/// Whether the watchdog asked the call in flight to arm its hook (its signal may be blocked);
/// true once, and then the caller arms it (the call counts as armed from then on).
int lk_watch_arm_requested(int slot);
_Atomic int *lk_watch_arm_request(int slot);
/// CLOCK_MONOTONIC in nanoseconds.
int64_t lk_monotonic_ns(void);

#endif
