// The keys by which a proxy and its real table find each other (Transaction.c): light
// userdata no Lua code can make, and the walk over a table's entries that never shows them.
// Below the transactions and the state's shape, which both use them, and calling neither.
#include "LuaState.h"

const char lk_real_key = 0;   // proxy[&lk_real_key]: the real table it stands for
const char lk_proxy_key = 0;  // real[&lk_proxy_key]: its proxy, once one was made

int lk_next(lua_State *L, int index) { return lk_next_visible(L, index); }

int lk_push_proxied_table(lua_State *L, int index) { return lk_push_real_of(L, index); }
