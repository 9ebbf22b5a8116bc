// Shifts and moves of elements within a state's array, in its real table, journaled: what the
// table library does for `insert`, `remove` and a sort done in a copy (TableLibrary.c).
//
// A shift moves a run of slots by one, each slot taking its neighbour's value. Written as one
// journal entry a slot it costs three times the moves themselves, so a run of slots is one
// *shift entry*: (real table, &lk_shift_key, { to, count, direction, old value of `to` }),
// saying that for j in [0, count) slot to + j * direction took the value of the slot after it
// (to + (j + 1) * direction). Its undo walks the run back. The readers of the journal that look
// for each key's old value (TransactionChanges.c) read it as the one entry a slot it stands for.
#include "LuaState.h"

static const char lk_shift_key = 0;  // journal entry: (table, &lk_shift_key, descriptor)

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
  lk_shift shift = lk_shift_of(L, descriptor);
  lua_Integer to = shift.to, count = shift.count, direction = shift.direction;
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

lk_shift lk_shift_of(lua_State *L, int descriptor) {
  descriptor = lua_absindex(L, descriptor);
  lk_shift shift = {
      .to = lk_shift_field(L, descriptor, LK_SHIFT_TO),
      .count = lk_shift_field(L, descriptor, LK_SHIFT_COUNT),
      .direction = lk_shift_field(L, descriptor, LK_SHIFT_DIRECTION),
  };
  return shift;
}

void lk_push_shift_first_old(lua_State *L, int descriptor) {
  lua_rawgeti(L, descriptor, LK_SHIFT_OLD);
}
