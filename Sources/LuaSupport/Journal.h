// The transaction journal (Journal.c): `length` entries of three values, (table, key, old
// value), or (table, the adoption key, old metatable) for an adoption.
#ifndef LK_JOURNAL_H
#define LK_JOURNAL_H

#include "LuaSupport.h"

// The journal's part of lk_info, written only by Journal.c and the inline functions below;
// the transactions read `length`.
typedef struct {
  lua_Integer length;   // entries (three slots each) in the transaction journal
  lua_State *current;   // the journal's segment being written
  lua_Integer segment;  // its place in the list of segments, 0 the oldest
  int room;             // slots it takes before it must be given more
} lk_journal;

// The state's part (defined in LuaState.h, which has the whole of lk_info).
static inline lk_journal *lk_journal_of(lua_State *L);

void lk_journal_open(lua_State *L);
/// Gives the segment being written room for at least one more entry; raises the memory error
/// (or the memory limit's) if it cannot, before anything is written.
void lk_journal_reserve(lua_State *L);
/// Moves the three values on top of the stack into the journal as its newest entry; raises
/// (having moved nothing) if the journal cannot grow.
static inline void lk_journal_push(lua_State *L) {
  lk_journal *journal = lk_journal_of(L);
  if (__builtin_expect(journal->room < 3, 0)) lk_journal_reserve(L);
  lua_xmove(L, journal->current, 3);
  journal->room -= 3;
  journal->length += 1;
}
/// Drops the newest entry (once an undo applied it).
void lk_journal_drop(lua_State *L);
/// Pushes field 1, 2 or 3 of the entry `entry` (0: the oldest), leaving the journal as it is.
void lk_journal_push_field(lua_State *L, lua_Integer entry, int field);
/// A journal of more entries than this is replaced by a new, small one when it is forgotten:
/// Lua never shrinks a stack that was asked for its room, so it would keep its peak size (16
/// bytes a slot, three slots an entry) for the life of the VM. Less than a segment's entries.
enum { LK_JOURNAL_REPLACED_ABOVE = 4096 };
/// Forgets a journal of more than LK_JOURNAL_REPLACED_ABOVE entries (lk_journal_forget).
void lk_journal_forget_large(lua_State *L);
/// Empties the journal after a commit or a rollback (twice an action: inline, and nothing to do
/// for a journal already empty).
static inline void lk_journal_forget(lua_State *L) {
  lk_journal *journal = lk_journal_of(L);
  lua_Integer length = journal->length;
  if (length == 0) return;
  journal->length = 0;
  if (length > LK_JOURNAL_REPLACED_ABOVE || journal->segment != 0) {
    lk_journal_forget_large(L);
    return;
  }
  // One segment, the first, holds the whole journal: its stack is the entries.
  journal->room += (int)length * 3;
  lua_settop(journal->current, 0);
}
/// Entries in the journal (for the transactions, which only read it).
static inline lua_Integer lk_journal_length(lua_State *L) { return lk_journal_of(L)->length; }

#endif
