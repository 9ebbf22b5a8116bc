// The watchdog that arms the budget of a long call and stops one past its time (Watchdog.c).
#ifndef LUA_SUPPORT_WATCHDOG_H
#define LUA_SUPPORT_WATCHDOG_H

#include "LuaSupportShims.h"

/// How often the watchdog found its signal handler replaced (by the host) and put it back.
unsigned lk_watch_handler_reinstalls(void);

#endif
