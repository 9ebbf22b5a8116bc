// Shifts and moves within a state's array, journaled (ArrayShifts.c).
#ifndef LK_ARRAY_SHIFTS_H
#define LK_ARRAY_SHIFTS_H

#include "LuaSupport.h"

/// Pushes the real table of the state table at `index` when a transaction is open (its tables
/// may be written) and returns 1; 0, pushing nothing, otherwise.
int lk_push_writable_real(lua_State *L, int index);
/// real[to] = real[from] (nil for `from` 0), journaled, on the real table at `real` (absolute):
/// the table library shifting an element within its own array (insert, remove). The element
/// is the array's already, in the state's form: nothing to adopt, no shape to prove, no proxy
/// to go through. Counted as a write of the state (a move further out sees it). The caller
/// takes the table's view back first (lk_leave_view_for_good), for this and lk_state_shift_run.
void lk_state_shift(lua_State *L, int real, lua_Integer from, lua_Integer to);
/// lk_state_shift for `count` slots in a row: real[to] = real[to + direction], then `to` moves
/// on by `direction` (-1: an insert's shift up, from the end; 1: a remove's shift down). Runs of
/// slots that hold a value are one journal entry each (a shift entry); charged to the budget a
/// chunk of slots at a time.
void lk_state_shift_run(lua_State *L, int real, lua_Integer to, lua_Integer count,
                        int direction);
/// real[i] = the value on top (popped), journaled: an element of the array whose real table
/// is at `real` (absolute) put back at another place of it (a sort done in a copy), in the
/// state's form already (a real table, not its proxy). The caller makes its view forget `i`
/// first (lk_view_forget_index).
void lk_state_set_moved(lua_State *L, int real, lua_Integer i);

/// Whether the journal key at `index` marks a shift entry (table, marker, descriptor).
int lk_is_shift_key(lua_State *L, int index);
/// Undoes the shift entry of the table at `table` whose descriptor is at `descriptor`.
void lk_undo_shift(lua_State *L, int table, int descriptor);
/// Whether the journal holds a shift entry.
int lk_journal_has_shifts(lua_State *L);
/// The run a shift entry stands for: slot to + j * direction took the value of the slot after
/// it (to + (j + 1) * direction), for j in [0, count).
typedef struct {
  lua_Integer to;
  lua_Integer count;
  lua_Integer direction;
} lk_shift;
/// The run of the shift entry whose descriptor is at `descriptor`.
lk_shift lk_shift_of(lua_State *L, int descriptor);
/// Pushes the old value of the first slot of the run whose descriptor is at `descriptor`.
void lk_push_shift_first_old(lua_State *L, int descriptor);

#endif
