// Shifts and moves of elements within a state's array, in its real table, journaled: what the
// table library does for `insert`, `remove` and a sort done in a copy (TableLibrary.c).
//
// A shift moves a run of slots by one, each slot taking its neighbour's value. Written as one
// journal entry a slot it costs three times the moves themselves, so a run of slots is one
// *shift entry*: (real table, &lk_shift_key, { to, count, direction, old value of `to` }),
// saying that for j in [0, count) slot to + j * direction took the value of the slot after it
// (to + (j + 1) * direction). Its undo walks the run back. The readers of the journal that look
// for each key's old value (TransactionChanges.c) read it through lk_push_journal_slots, which
// writes each shift entry out as the one entry a slot it stands for.
#include "LuaState.h"

static const char lk_shift_key = 0;  // journal entry: (table, &lk_shift_key, descriptor)
static const char lk_was_nil = 0;    // lk_push_journal_slots: a value just after that was nil

// The descriptor's fields.
enum { LK_SHIFT_TO = 1, LK_SHIFT_COUNT = 2, LK_SHIFT_DIRECTION = 3, LK_SHIFT_OLD = 4 };

enum { lk_shift_chunk = 1024 };  // slots shifted between two charges to the budget

int lk_push_writable_real(lua_State *L, int index) {
  if (!lk_info_of(L)->transaction.open) return 0;
  return lk_push_real_of(L, index);
}

void lk_state_shift(lua_State *L, int real, lua_Integer from, lua_Integer to) {
  lk_info *info = lk_info_of(L);
  info->shape.move_mark = NULL;  // as any write: a mark serves the write it was made for
  info->shape.writes += 1;
  lua_pushvalue(L, real);
  lua_pushinteger(L, to);
  lua_rawgeti(L, real, to);
  lk_journal_push(L);
  if (from == 0) {
    lua_pushnil(L);
  } else {
    lua_rawgeti(L, real, from);
  }
  lua_rawseti(L, real, to);
}

void lk_state_shift_run(lua_State *L, int real, lua_Integer to, lua_Integer count,
                        int direction) {
  lk_info *info = lk_info_of(L);
  real = lua_absindex(L, real);
  info->shape.move_mark = NULL;  // as any write: a mark serves the write it was made for
  lua_Integer charged = 0;       // slots charged to the budget and not shifted yet
  while (count > 0) {
    if (charged == 0) {
      charged = count < lk_shift_chunk ? count : lk_shift_chunk;
      lk_charge(L, charged);
    }
    // A slot that holds nil may be a key the table lacks, whose write may allocate (and raise):
    // written alone, as any write, its entry first.
    if (lua_rawgeti(L, real, to) == LUA_TNIL) {
      lua_pop(L, 1);
      lk_state_shift(L, real, to + direction, to);
      to += direction;
      count -= 1;
      charged -= 1;
      continue;
    }
    // A run: the slots from `to` on that hold a value, as many as are charged, one entry for
    // them all, its count written once they are shifted. Nothing from the entry to the count
    // can raise: reads, and writes of keys the table holds.
    int old = lua_gettop(L);
    lua_createtable(L, 4, 0);
    int descriptor = old + 1;
    lua_pushinteger(L, to);
    lua_rawseti(L, descriptor, LK_SHIFT_TO);
    lua_pushinteger(L, 0);
    lua_rawseti(L, descriptor, LK_SHIFT_COUNT);
    lua_pushinteger(L, direction);
    lua_rawseti(L, descriptor, LK_SHIFT_DIRECTION);
    lua_pushvalue(L, old);
    lua_rawseti(L, descriptor, LK_SHIFT_OLD);
    lua_pushvalue(L, real);
    lua_pushlightuserdata(L, (void *)&lk_shift_key);
    lua_pushvalue(L, descriptor);
    lk_journal_push(L);
    info->transaction.shift_entries += 1;
    lua_Integer done = 0;
    int more;
    do {
      more = lua_rawgeti(L, real, to + direction) != LUA_TNIL;  // what the next slot holds
      lua_rawseti(L, real, to);
      to += direction;
      done += 1;
    } while (more && done < charged);
    count -= done;
    charged -= done;
    info->shape.writes += done;
    lua_pushinteger(L, done);
    lua_rawseti(L, descriptor, LK_SHIFT_COUNT);  // in the array part: allocates nothing
    lua_settop(L, old - 1);
  }
}

void lk_state_set_moved(lua_State *L, int real, lua_Integer i) {
  lk_info *info = lk_info_of(L);
  info->shape.move_mark = NULL;
  info->shape.writes += 1;
  lua_pushvalue(L, real);
  lua_pushinteger(L, i);
  lua_rawgeti(L, real, i);
  lk_journal_push(L);
  lua_rawseti(L, real, i);
}

int lk_is_shift_key(lua_State *L, int index) {
  return lua_type(L, index) == LUA_TLIGHTUSERDATA && lua_touserdata(L, index) == &lk_shift_key;
}

// A descriptor's integer field `field`.
static lua_Integer lk_shift_field(lua_State *L, int descriptor, int field) {
  lua_rawgeti(L, descriptor, field);
  lua_Integer value = lua_tointeger(L, -1);
  lua_pop(L, 1);
  return value;
}

void lk_undo_shift(lua_State *L, int table, int descriptor) {
  table = lua_absindex(L, table);
  descriptor = lua_absindex(L, descriptor);
  lua_Integer to = lk_shift_field(L, descriptor, LK_SHIFT_TO);
  lua_Integer count = lk_shift_field(L, descriptor, LK_SHIFT_COUNT);
  lua_Integer direction = lk_shift_field(L, descriptor, LK_SHIFT_DIRECTION);
  // Slot j held what slot j - 1 holds now (it took the value of slot j before the shift), the
  // first its old value: walked from the far end, each read before it is written.
  for (lua_Integer j = count - 1; j >= 1; j--) {
    lua_rawgeti(L, table, to + (j - 1) * direction);
    lua_rawseti(L, table, to + j * direction);
  }
  if (count > 0) {
    lua_rawgeti(L, descriptor, LK_SHIFT_OLD);
    lua_rawseti(L, table, to);
  }
  lk_info_of(L)->transaction.shift_entries -= 1;
}

int lk_journal_has_shifts(lua_State *L) {
  return lk_info_of(L)->transaction.shift_entries > 0;
}

// Pushes what table[key] held just after the entry being walked (newest first): what `after`
// (table -> { key -> value, or the nil marker }) says, or what it holds now.
static void lk_push_value_after(lua_State *L, int after, int table, lua_Integer key) {
  lua_pushvalue(L, table);
  if (lua_rawget(L, after) == LUA_TTABLE) {
    if (lua_rawgeti(L, -1, key) != LUA_TNIL) {
      lua_remove(L, -2);
      if (lua_touserdata(L, -1) == &lk_was_nil) {
        lua_pop(L, 1);
        lua_pushnil(L);
      }
      return;
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  lua_rawgeti(L, table, key);
}

// Pushes after[table], made if it is not there.
static void lk_push_after_of(lua_State *L, int after, int table) {
  lua_pushvalue(L, table);
  if (lua_rawget(L, after) == LUA_TTABLE) return;
  lua_pop(L, 1);
  lua_newtable(L);
  lua_pushvalue(L, table);
  lua_pushvalue(L, -2);
  lua_rawset(L, after);
}

// Sets noted[key] to the value at `value`, nil as the marker (indices absolute).
static void lk_note_after(lua_State *L, int noted, int key, int value) {
  lua_pushvalue(L, key);
  if (lua_isnil(L, value)) lua_pushlightuserdata(L, (void *)&lk_was_nil);
  else lua_pushvalue(L, value);
  lua_rawset(L, noted);
}

lua_Integer lk_push_journal_slots(lua_State *L) {
  luaL_checkstack(L, 16, "the journal's entries");
  lua_Integer length = lk_journal_length(L);
  lua_Integer total = 0;
  for (lua_Integer entry = 0; entry < length; entry++) {
    lk_journal_push_field(L, entry, 2);
    if (lk_is_shift_key(L, -1)) {
      lk_journal_push_field(L, entry, 3);
      total += lk_shift_field(L, lua_gettop(L), LK_SHIFT_COUNT);
      lua_pop(L, 1);
    } else {
      total += 1;
    }
    lua_pop(L, 1);
  }
  lua_createtable(L, (int)(total * 3 < INT32_MAX ? total * 3 : 0), 1);
  int slots = lua_gettop(L);
  lua_pushinteger(L, total);
  lua_rawseti(L, slots, 0);
  lua_newtable(L);
  int after = slots + 1;
  // Newest first: each slot's old value under a shift is the value just after it of the slot
  // next to it, which the entries after it (walked already) or the table now give.
  lua_Integer next = total;  // the entries written so far are those from `next` on
  for (lua_Integer entry = length - 1; entry >= 0; entry--) {
    int table = after + 1, key = after + 2, old = after + 3;
    for (int field = 1; field <= 3; field++) lk_journal_push_field(L, entry, field);
    if (lk_is_shift_key(L, key)) {
      lua_Integer to = lk_shift_field(L, old, LK_SHIFT_TO);
      lua_Integer count = lk_shift_field(L, old, LK_SHIFT_COUNT);
      lua_Integer direction = lk_shift_field(L, old, LK_SHIFT_DIRECTION);
      lua_createtable(L, (int)count, 0);
      int olds = old + 1;
      for (lua_Integer j = 0; j < count; j++) {
        if (j == 0) lua_rawgeti(L, old, LK_SHIFT_OLD);
        else lk_push_value_after(L, after, table, to + (j - 1) * direction);
        lua_rawseti(L, olds, j + 1);
      }
      lk_push_after_of(L, after, table);
      int noted = olds + 1;
      for (lua_Integer j = count - 1; j >= 0; j--) {
        next -= 1;
        lua_pushvalue(L, table);
        lua_rawseti(L, slots, next * 3 + 1);
        lua_pushinteger(L, to + j * direction);
        lua_pushvalue(L, -1);
        lua_rawseti(L, slots, next * 3 + 2);
        lua_rawgeti(L, olds, j + 1);
        lua_pushvalue(L, -1);
        lua_rawseti(L, slots, next * 3 + 3);
        lk_note_after(L, noted, noted + 1, noted + 2);
        lua_pop(L, 2);
      }
    } else {
      next -= 1;
      for (int field = 1; field <= 3; field++) {
        lua_pushvalue(L, after + field);
        lua_rawseti(L, slots, next * 3 + field);
      }
      if (!lk_is_adoption_key(L, key)) {
        lk_push_after_of(L, after, table);
        lk_note_after(L, lua_gettop(L), key, old);
      }
    }
    lua_settop(L, after);
  }
  lua_pop(L, 1);
  return total;
}
