// The shape of a state: how deep its tables nest (StateShape.c).
#ifndef LUA_SUPPORT_STATE_SHAPE_H
#define LUA_SUPPORT_STATE_SHAPE_H

#include "LuaSupportShims.h"

/// Where the VM keeps whether a write of the open transaction may have left its state out of
/// shape (non-zero: then, and only then, `lk_transaction_check_shape` walks it): read there,
/// for the cost of a load rather than a call, after every action.
const int *lk_transaction_shape_flag(lua_State *L);
/// Whether the open transaction left its state in shape (at most 200 levels deep, no table
/// inside itself): LUA_OK, or an error status with the message naming the place on the stack.
int lk_transaction_check_shape(lua_State *L, int state);

#endif
