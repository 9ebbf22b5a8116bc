// The C half of the bridge: everything Swift cannot do itself, kept small.
//
// - `static inline` shims for the Lua API that is made of macros or variadics.
// - `lk_newstate`/`lk_close`: a state whose allocator enforces a memory cap and whose count
//   hook enforces an instruction budget, both only while Lua code runs under `lk_pcall`.
// - `lk_pcall`: every call into Lua goes through it: protected, with a traceback handler.
// - `lk_push_host_function`: a Lua C closure over a Swift function. The Swift function never
//   raises; it returns a status and the C trampoline raises, so a longjmp never crosses a
//   Swift frame.
//
// One header a module of the C layer, each named for the file that defines what it declares;
// this umbrella includes them all, and Swift imports it as the module LuaSupport.
#ifndef LUA_SUPPORT_H
#define LUA_SUPPORT_H

#include "LuaSupportShims.h"
#include "LuaSupportLuaState.h"
#include "LuaSupportProtectedCall.h"
#include "LuaSupportAllocator.h"
#include "LuaSupportBudget.h"
#include "LuaSupportWatchdog.h"
#include "LuaSupportLoad.h"
#include "LuaSupportHostFunctions.h"
#include "LuaSupportPatterns.h"
#include "LuaSupportTransaction.h"
#include "LuaSupportHiddenKeys.h"
#include "LuaSupportStateShape.h"
#include "LuaSupportTransactionChanges.h"
#include "LuaSupportJSON.h"
#include "LuaSupportDataCopy.h"
#include "LuaSupportReadingFunctions.h"
#include "LuaSupportFunctionCode.h"
#include "LuaSupportNames.h"
#include "LuaSupportActionTags.h"

#endif
