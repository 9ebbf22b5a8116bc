// Transactions and the functions that see raw tables (Transaction.c).
#ifndef LK_TRANSACTION_H
#define LK_TRANSACTION_H

#include "LuaSupport.h"

// The transactions' part of lk_info, written only by Transaction.c.
typedef struct {
  int open;                  // state tables may be written
  lua_Integer proxies_made;  // real tables given a proxy by the open transaction
  int kept_grew;             // a sweep kept proxies weakly since the last full collection
  // What the adoption of a stored table met: its height, and whether a state table was inside
  // it.
  int adopt_height;
  int adopt_met_state_table;
  // Proxies given flat reads for the open transaction only (lk_read_flat_in_action).
  lua_Integer flat_for_action;
  // Proxies given flat reads that last (Transaction.c, "Flat reads"): how many have them, how
  // many the open transaction gave (listed: a rollback takes them back), the transactions
  // begun, and the one at which the first count was made again.
  lua_Integer lasting_flat;
  lua_Integer lasting_given;
  lua_Integer serial;
  lua_Integer counted_at;
  // The proxies' three shared metatables, told apart by address (each kept in the registry).
  const void *plain_metatable;
  const void *fresh_metatable;
  const void *warm_metatable;
} lk_transaction;

void lk_transactions_open(lua_State *L);
// Arrays: whether the table at `index` has the array marker; marks it.
int lk_has_array_marker(lua_State *L, int index);
void lk_mark_array(lua_State *L, int index);
/// Whether the journal key at `index` marks an adoption (table, marker, old metatable) rather
/// than a write.
int lk_is_adoption_key(lua_State *L, int index);
/// Whether the real table at `index` is a journaled table's (lk_push_journaled_table):
/// bookkeeping beside a state, never part of one.
int lk_is_bookkeeping(lua_State *L, int index);

/// Gives the proxy at `index` (a state table's, without flat reads) reads at the speed of a
/// plain table's, a lookup the VM does in its real table, when its real table holds no table
/// (what a read hands out is then never a proxy): lasting ones (see Transaction.c's "Flat
/// reads"), or past their limit, for the rest of the open transaction only. A write that
/// stores a table in it takes them back (as a flat root's), and so does a rollback. For the
/// table library's loops that read elements over and over (a sort's order function).
void lk_read_flat_in_action(lua_State *L, int index);
/// Pushes the real table of the state table at `index` when a transaction is open (its tables
/// may be written) and returns 1; 0, pushing nothing, otherwise.
int lk_push_writable_real(lua_State *L, int index);
/// real[to] = real[from] (nil for `from` 0), journaled, on the real table at `real` (absolute):
/// the table library shifting an element within its own array (insert, remove). The element
/// is the array's already, in the state's form: nothing to adopt, no shape to prove, no proxy
/// to go through. Counted as a write of the state (a move further out sees it).
void lk_state_shift(lua_State *L, int real, lua_Integer from, lua_Integer to);
/// lk_state_shift for `count` slots in a row: real[to] = real[to + direction], then `to` moves
/// on by `direction` (-1: an insert's shift up, from the end; 1: a remove's shift down). Charged
/// to the budget a chunk of slots at a time, each slot journaled before it is written.
void lk_state_shift_run(lua_State *L, int real, lua_Integer to, lua_Integer count,
                        int direction);
/// real[i] = the value on top (popped), journaled: an element of the array whose real table
/// is at `real` (absolute) put back at another place of it (a sort done in a copy), in the
/// state's form already (a real table, not its proxy).
void lk_state_set_moved(lua_State *L, int real, lua_Integer i);

#endif
