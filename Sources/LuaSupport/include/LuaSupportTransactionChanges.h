// What the open transaction changed (TransactionChanges.c).
#ifndef LUA_SUPPORT_TRANSACTION_CHANGES_H
#define LUA_SUPPORT_TRANSACTION_CHANGES_H

#include "LuaSupportShims.h"

/// Whether the open transaction changed the field `key` of the state at `root` (its proxy or
/// real table), or anything it reaches; with `key` nil, anything of the state. A write that left
/// the value the transaction began with changes nothing. 1 when it could not tell.
int lk_transaction_changed_field(lua_State *L, int root, int key);
/// Pushes the `composable.journal` module: `table()` (lk_push_journaled_table_function), and
/// what state tables held when the open transaction began, `was_set(t, key)` and
/// `had_element(t, key, field, value)`.
void lk_push_journal_module(lua_State *L);
/// Empties every table of the journal module's `kept` (a library's bookkeeping across actions:
/// which children have effects running), outside a transaction: what a host does when it has
/// cancelled every effect and set the state anew. LUA_OK, or an error status with the message
/// on the stack (out of memory).
int lk_journal_clear_kept(lua_State *L);
/// Pushes a copy of what the tables of `kept` hold: { [name] = { [key] = value } }, each a
/// plain table with the entries of that table (values as they are, not copied below).
/// LUA_OK, or an error status with the message on the stack instead.
int lk_journal_copy_kept(lua_State *L);
/// Writes a copy from lk_journal_copy_kept (at `copy`) back into the tables of `kept`, as the
/// host writes a state; one not in the copy is emptied. LUA_OK, or an error status with the
/// message on the stack.
int lk_journal_restore_kept(lua_State *L, int copy);
/// Inside a transaction, what it changed in the state at `root` (a proxy or its real table), as
/// the host reads it (see TransactionChanges.c). Pushes a table of three tables, each keyed by
/// a table's address (light userdata): [1] the first old value of each key the transaction
/// wrote in that table (nil as the marker `lk_changes_is_nil_marker` knows); [2] the tables by
/// address, holding the root's real table, for the host to add those it reads; [3] those that
/// changed, or hold one that did: true for one the transaction wrote, and for one it did not
/// (whose fields are the same before and now but for the tables in them that changed) the list
/// of the keys of the fields that hold a changed table, with `n` the table's length when its
/// keys are 1 to n. Time as the tables of the state, with no look-up in a Lua table but for the
/// changed ones. Returns LUA_OK, or an error status with the message on the stack instead.
int lk_transaction_changes(lua_State *L, int root);
/// Whether the value at `index` is the marker of an old value that was nil.
int lk_changes_is_nil_marker(lua_State *L, int index);

#endif
