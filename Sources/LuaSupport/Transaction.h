// Transactions and the functions that see raw tables (Transaction.c).
#ifndef LK_TRANSACTION_H
#define LK_TRANSACTION_H

#include "LuaSupport.h"

// As LK_STATE_MAX_DEPTH (StateShape.h): an adoption refuses a table at that depth.
enum { LK_ADOPT_MAX_DEPTH = 200 };

// The transactions' part of lk_info, written only by Transaction.c.
typedef struct {
  int open;                  // state tables may be written
  lua_Integer proxies_made;  // real tables given a proxy by the open transaction
  int kept_grew;             // a sweep kept proxies weakly since the last full collection
  // What the adoption of a stored table met: its height, and whether a state table was inside
  // it.
  int adopt_height;
  int adopt_met_state_table;
  // The stack slot of the heights of the tables it adopted that hold tables (0: no adoption
  // under way; see lk_note_adopted_height).
  int adopt_heights;
  // The real tables of the tables being adopted, by depth (1: the one stored; an array on the C
  // stack of lk_store_form_protected, not here: 1.6 KB in the middle of lk_info moved the
  // fields after it, and the counter's send took 4% more time), and whether the adoption met
  // one of them again: a table inside itself (lk_store_form).
  const void **adopt_path;
  int adopt_met_cycle;
  // The adoption is walking each table's fields in key order: a refused store is tried again
  // so, to name the first refusal in that order whatever the tables' hash order.
  int adopt_in_key_order;
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
  const void *nested_metatable;
  // Proxies given a view (Transaction.c, "Views") and not taken back: 0 only when none has one.
  lua_Integer views;
  // Whether feature code ever set a table as a metatable (lk_safe_setmetatable): until then an
  // adoption need not look the table up among them.
  int metatables_set;
  // The strings' metatable, which the string library set (not lk_safe_setmetatable), and which
  // feature code reaches with getmetatable(""): never adopted either.
  const void *string_metatable;
  // Shift entries in the journal (ArrayShifts.c writes and undoes them).
  lua_Integer shift_entries;
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
/// Takes back the view of the proxy at `proxy`, if it has one, for good: the table library
/// shifts its array (Transaction.c, "Views"). The proxy itself, not one found from its real
/// table: a sweep may have dropped that link while the proxy lives on (in a parent's view).
void lk_leave_view_for_good(lua_State *L, int proxy);
/// The view of the proxy at `proxy`, if it has one, forgets index `i`: the table library wrote
/// it behind the view (a sort's write-back).
void lk_view_forget_index(lua_State *L, int proxy, lua_Integer i);
/// Undoes the journal's entries newer than `mark` (a journal length taken before), newest
/// first: for a library function whose writes go together, when one after the first fails (a
/// memory error between the two writes of a swap would leave one element in two slots and the
/// other in none, which no plain Lua table can come to). Protected and without the memory
/// cap; if it fails all the same, what is left to undo stays in the journal, for the rollback.
/// Leaves the stack as it was.
void lk_journal_undo_to(lua_State *L, lua_Integer mark);
#endif
