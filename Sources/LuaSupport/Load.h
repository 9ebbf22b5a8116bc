// Loading source (Load.c): what BaseLibrary.c's `load` shares with the host's lk_loadtext.
#ifndef LK_LOAD_H
#define LK_LOAD_H

#include "LuaSupport.h"

/// The most bytes of Lua source the parser is given at once. Parsing is not counted by the
/// budget as it goes, and some sources cost far more per byte than others (a name looked up
/// through 200 nested functions of 200 locals each): between two pieces a load checks the
/// stop, the budget and the time, so no parse runs long unchecked.
enum { LK_SOURCE_PIECE = 1024, LK_SOURCE_BYTES_PER_INSTRUCTION = 8 };

/// Charges `bytes` of source about to be parsed: to the call in flight (raising its stop), or,
/// outside any call, against the time limit from `started_ns`, raising past it.
void lk_charge_source(lua_State *L, size_t bytes, int64_t started_ns);

#endif
