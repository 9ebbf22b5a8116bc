// Transactions over a state's tables (Transaction.c).
#ifndef LUA_SUPPORT_TRANSACTION_H
#define LUA_SUPPORT_TRANSACTION_H

#include "LuaSupportShims.h"

/// A full garbage collection, then the host's own tables that the collection emptied made
/// small again (the proxies kept after a sweep, see Transaction.c).
int lk_gc_collect(lua_State *L);
/// Pushes the transactional proxy of the state table at `index`: reads go through to the
/// table, writes are applied and journaled while a transaction is open, refused otherwise.
void lk_push_transactional_proxy(lua_State *L, int index);
/// Tells the state which metatable marks arrays: the one metatable a stored table may have.
void lk_set_array_marker(lua_State *L, int index);
/// Pushes a C function that makes a new empty journaled table: not part of any state, but
/// written only inside transactions and rolled back with them (bookkeeping of a library).
void lk_push_journaled_table_function(lua_State *L);
/// The host's write to the state behind the proxy at `proxy`: `value` into the field at `key`,
/// or, when `key` is 0, as the whole state (its fields replace the table's, in place). Not
/// journaled. Protected: returns Lua's status, with the message on top on failure.
int lk_state_write(lua_State *L, int proxy, int key, int value);
/// Opens a transaction on the state whose root proxy is in the registry at `state_slot`,
/// forgetting the journal of the last one: from now on state tables may be written, each write
/// journaled, and the state's shape is checked against that root (StateShape.c).
void lk_transaction_begin(lua_State *L, int state_slot);
/// Undoes every write of the open transaction, newest first, and closes it. Returns LUA_OK, or
/// Lua's status if the undo itself failed (out of memory).
int lk_transaction_rollback(lua_State *L);
/// Closes the open transaction: its writes stay.
void lk_transaction_commit(lua_State *L);
/// What a write to a state table outside a transaction raises (after the Lua line): the host
/// says why its state is read-only. Set before any Lua code runs (it allocates).
void lk_set_read_only_message(lua_State *L, const char *message);
int lk_transaction_is_open(lua_State *L);
/// Makes state tables read-only for a while inside an open transaction (Lua code the host calls
/// between the reducer and the commit); returns what `lk_transaction_reopen_writes` restores.
int lk_transaction_close_writes(lua_State *L);
void lk_transaction_reopen_writes(lua_State *L, int was_open);
/// Whether the open (or last) transaction wrote anything.
int lk_transaction_wrote(lua_State *L);

#endif
