// The table library, written again so that every loop is charged to the budget.
//
// Lua's own functions loop in C over elements they reach with lua_geti/lua_seti, and a table
// whose `__len` reports a huge length (or a range given as arguments) makes a loop that no
// instruction count sees: `table.remove(setmetatable({}, { __len = function() return
// math.maxinteger end }), 1)` would shift 2^63 elements. These versions do what Lua 5.4.4's
// do, step for step (the same arguments checked in the same order with the same messages,
// the same elements read and written in the same order, the same errors), and charge each step
// as they make it: a loop that a metamethod's error would end early ends there, as in Lua, and
// one that would run for ages stops when the budget is spent.
//
// Each function is called directly from Lua (never through another C function), so Lua names
// it in argument errors as it names its own (`bad argument #2 to 'insert'`) and places errors
// at the Lua line that called.
#include "LuaState.h"

#include <limits.h>

enum { LK_TABLE_READ = 1, LK_TABLE_WRITE = 2, LK_TABLE_LENGTH = 4 };

// Whether the metatable on top (below `pushed` values it pushed already) has `event`,
// pushing its value.
static int lk_has_metamethod(lua_State *L, const char *event, int pushed) {
  lua_pushstring(L, event);
  return lua_rawget(L, -pushed - 1) != LUA_TNIL;
}

// Argument `arg` must be a table, or a value whose metatable gives the access `what` needs
// (__index to read, __newindex to write, __len for the length).
static void lk_check_table_like(lua_State *L, int arg, int what) {
  if (lua_type(L, arg) == LUA_TTABLE) return;
  int pushed = 1;  // the metatable, then each metamethod looked at
  if (lua_getmetatable(L, arg) &&
      (!(what & LK_TABLE_READ) || lk_has_metamethod(L, "__index", pushed++)) &&
      (!(what & LK_TABLE_WRITE) || lk_has_metamethod(L, "__newindex", pushed++)) &&
      (!(what & LK_TABLE_LENGTH) || lk_has_metamethod(L, "__len", pushed++))) {
    lua_pop(L, pushed);
    return;
  }
  luaL_checktype(L, arg, LUA_TTABLE);  // raises Lua's own message
}

// The length of argument `arg`, checked for the access `what` first (as Lua's aux_getn).
static lua_Integer lk_table_length(lua_State *L, int arg, int what) {
  lk_check_table_like(L, arg, what | LK_TABLE_LENGTH);
  return luaL_len(L, arg);
}

// MARK: - Moves within one array

// The table library moves elements within a state's array (sort, insert, remove, a move inside
// one table) as Lua's does, through the array's proxy: each write of an element it read from
// that array is marked (lk_shape_move_next), so the write skips what an element stored from
// elsewhere must prove (its form, the state's shape). lk_move_begin tells the shape which
// array (none when argument `arg` is no state table, or 0) and which call moves it (its frame),
// and returns the move made before; lk_move_end gives that back. A mark is honoured only for a
// write that very call makes (Transaction.c checks the caller's frame), so what an error left
// (a failed inner sort's move, a mark not yet taken) serves no other call.
static lk_shape_move lk_move_begin(lua_State *L, int arg) {
  const void *real = NULL;
  if (arg != 0 && lk_push_proxied_table(L, arg)) {
    real = lua_topointer(L, -1);
    lua_pop(L, 1);
  }
  lua_Debug self;  // level 0: the library function now running, this call of it
  const void *frame = lua_getstack(L, 0, &self) ? (const void *)self.i_ci : NULL;
  if (frame == NULL) real = NULL;
  return lk_shape_moving(&lk_info_of(L)->shape, real, L, frame);
}

static void lk_move_end(lua_State *L, lk_shape_move outer) {
  lk_shape_moved(&lk_info_of(L)->shape, outer);
}

// t[i] = the value on top (popped), an element read from the array being moved within.
static void lk_move_set(lua_State *L, int t, lua_Integer i) {
  lk_shape_move_next(&lk_info_of(L)->shape, lua_type(L, -1) == LUA_TTABLE);
  lua_seti(L, t, i);
}

// MARK: - The functions

// table.insert(t, [pos,] value)
static int lk_table_insert(lua_State *L) {
  lua_Integer first_empty = lk_table_length(L, 1, LK_TABLE_READ | LK_TABLE_WRITE);
  first_empty = (lua_Integer)((lua_Unsigned)first_empty + 1u);  // wraps as Lua's luaL_intop
  lua_Integer position;
  switch (lua_gettop(L)) {
    case 2:
      position = first_empty;
      break;
    case 3: {
      position = luaL_checkinteger(L, 2);
      luaL_argcheck(L, (lua_Unsigned)position - 1u < (lua_Unsigned)first_empty, 2,
                    "position out of bounds");
      if (lk_push_writable_real(L, 1)) {  // a state's array: shifted in its real table
        lk_leave_view_for_good(L, 1);  // written behind its view
        lk_state_shift_run(L, lua_gettop(L), first_empty, first_empty - position, -1);
        lua_pop(L, 1);
        break;
      }
      lk_shape_move outer = lk_move_begin(L, 1);
      for (lua_Integer i = first_empty; i > position; i--) {
        lk_charge(L, 1);
        lua_geti(L, 1, i - 1);
        lk_move_set(L, 1, i);
      }
      lk_move_end(L, outer);
      break;
    }
    default:
      return luaL_error(L, "wrong number of arguments to 'insert'");
  }
  lua_seti(L, 1, position);
  return 0;
}

// table.remove(t [, pos])
static int lk_table_remove(lua_State *L) {
  lua_Integer size = lk_table_length(L, 1, LK_TABLE_READ | LK_TABLE_WRITE);
  lua_Integer position = luaL_optinteger(L, 2, size);
  if (position != size) {
    // Lua 5.4.4 names argument 1 here (fixed in 5.4.5): kept, so messages read the same.
    luaL_argcheck(L, (lua_Unsigned)position - 1u <= (lua_Unsigned)size, 1,
                  "position out of bounds");
  }
  lua_geti(L, 1, position);
  if (lk_push_writable_real(L, 1)) {  // a state's array: shifted in its real table
    int real = lua_gettop(L);
    lk_leave_view_for_good(L, 1);  // written behind its view
    if (position < size) {
      lk_state_shift_run(L, real, position, size - position, 1);
      position = size;
    }
    lk_state_shift(L, real, 0, position);
    lua_pop(L, 1);
    return 1;
  }
  lk_shape_move outer = lk_move_begin(L, 1);
  for (; position < size; position++) {
    lk_charge(L, 1);
    lua_geti(L, 1, position + 1);
    lk_move_set(L, 1, position);
  }
  lk_move_end(L, outer);
  lua_pushnil(L);
  lua_seti(L, 1, position);
  return 1;
}

// Moves a1[first + i] (a1 at 1) to a2[target + i] (a2 at `destination`) for i in [0, count),
// backwards when `backwards`; `within` one table, the moves are marked (into another, they are
// writes like any other).
static void lk_move_elements(lua_State *L, int destination, lua_Integer first, lua_Integer count,
                             lua_Integer target, int backwards, int within) {
  lk_shape_move outer = lk_move_begin(L, within ? 1 : 0);
  for (lua_Integer step = 0; step < count; step++) {
    lua_Integer i = backwards ? count - 1 - step : step;
    lk_charge(L, 1);
    lua_geti(L, 1, first + i);
    lk_move_set(L, destination, target + i);
  }
  lk_move_end(L, outer);
}

// lk_move_elements, protected: 1 a1, 2 a2, 3 first, 4 count, 5 target, 6 backwards, 7 within.
static int lk_move_elements_protected(lua_State *L) {
  lk_move_elements(L, 2, lua_tointeger(L, 3), lua_tointeger(L, 4), lua_tointeger(L, 5),
                   lua_toboolean(L, 6), lua_toboolean(L, 7));
  return 0;
}

// Whether a move into the table at `destination` from the one at 1 runs no Lua code of the
// feature's (a state table, or a plain table with no metatable, on each side), into a state
// table: its writes then fail only for memory or a limit, and go together (lk_table_move).
static int lk_move_is_state_only(lua_State *L, int destination) {
  if (!lk_push_proxied_table(L, destination)) return 0;
  lua_pop(L, 1);
  if (lk_push_proxied_table(L, 1)) {
    lua_pop(L, 1);
    return 1;
  }
  if (lua_type(L, 1) != LUA_TTABLE || !lua_getmetatable(L, 1)) return lua_type(L, 1) == LUA_TTABLE;
  lua_pop(L, 1);
  return 0;
}

// table.move(a1, f, e, t [, a2])
static int lk_table_move(lua_State *L) {
  lua_Integer first = luaL_checkinteger(L, 2);
  lua_Integer last = luaL_checkinteger(L, 3);
  lua_Integer target = luaL_checkinteger(L, 4);
  int destination = !lua_isnoneornil(L, 5) ? 5 : 1;
  lk_check_table_like(L, 1, LK_TABLE_READ);
  lk_check_table_like(L, destination, LK_TABLE_WRITE);
  if (last >= first) {
    luaL_argcheck(L, first > 0 || last < LUA_MAXINTEGER + first, 3,
                  "too many elements to move");
    lua_Integer count = last - first + 1;
    luaL_argcheck(L, target <= LUA_MAXINTEGER - count + 1, 4, "destination wrap around");
    int within = destination == 1 || lua_rawequal(L, 1, destination);
    // Forwards unless the ranges overlap in the same table with the target after the source.
    int backwards = !(target > last || target <= first ||
                      (destination != 1 && !lua_compare(L, 1, destination, LUA_OPEQ)));
    if (!lk_move_is_state_only(L, destination)) {
      // Lua code of the feature's may run (a metatable's __index or __newindex): as Lua's, a
      // move that raises half way leaves what it moved (and the error its own traceback).
      lk_move_elements(L, destination, first, count, target, backwards, within);
      lua_pushvalue(L, destination);
      return 1;
    }
    lua_Integer mark = lk_journal_length(L);
    lua_pushcfunction(L, lk_move_elements_protected);
    lua_pushvalue(L, 1);
    lua_pushvalue(L, destination);
    lua_pushinteger(L, first);
    lua_pushinteger(L, count);
    lua_pushinteger(L, target);
    lua_pushboolean(L, backwards);
    lua_pushboolean(L, within);
    if (lua_pcall(L, 7, 0, 0) != LUA_OK) {
      // Into a state table, a plain table's elements or its own, no Lua code runs: a failure
      // is a memory error or a limit, where a plain table's slots cannot fail, and the move is
      // undone whole (a shift that failed half way left one element twice and another lost).
      lk_journal_undo_to(L, mark);
      lua_error(L);
    }
  }
  lua_pushvalue(L, destination);
  return 1;
}

// Adds t[i] to the buffer of table.concat.
static void lk_concat_field(lua_State *L, luaL_Buffer *buffer, lua_Integer i) {
  lk_charge(L, 1);
  lua_geti(L, 1, i);
  if (!lua_isstring(L, -1)) {
    luaL_error(L, "invalid value (%s) at index %I in table for 'concat'", luaL_typename(L, -1),
               (lua_Integer)i);
  }
  luaL_addvalue(buffer);
}

// table.concat(t [, sep [, i [, j]]])
static int lk_table_concat(lua_State *L) {
  lua_Integer last = lk_table_length(L, 1, LK_TABLE_READ);
  size_t separator_length;
  const char *separator = luaL_optlstring(L, 2, "", &separator_length);
  lua_Integer i = luaL_optinteger(L, 3, 1);
  last = luaL_optinteger(L, 4, last);
  luaL_Buffer buffer;
  luaL_buffinit(L, &buffer);
  for (; i < last; i++) {
    lk_concat_field(L, &buffer, i);
    luaL_addlstring(&buffer, separator, separator_length);
  }
  if (i == last) lk_concat_field(L, &buffer, i);
  luaL_pushresult(&buffer);
  return 1;
}

// table.unpack(list [, i [, j]]): no check of the list's type, as in Lua (a string unpacks
// through its metatable).
static int lk_table_unpack(lua_State *L) {
  lua_Integer i = luaL_optinteger(L, 2, 1);
  lua_Integer last = lua_isnoneornil(L, 3) ? luaL_len(L, 1) : luaL_checkinteger(L, 3);
  if (i > last) return 0;
  lua_Unsigned count = (lua_Unsigned)last - (lua_Unsigned)i;  // minus one: cannot overflow
  if (count >= (unsigned int)INT_MAX || !lua_checkstack(L, (int)(++count))) {
    return luaL_error(L, "too many results to unpack");
  }
  for (; i < last; i++) {
    lk_charge(L, 1);
    lua_geti(L, 1, i);
  }
  lua_geti(L, 1, last);
  return (int)count;
}

// MARK: - Sorting
//
// Lua's quicksort, with the same comparisons in the same order: a sort with a comparator that
// is not a strict order, or one that reads the table, sees what it would see under `lua5.4`.
// One difference: when a partition comes out badly unbalanced, Lua picks later pivots at
// random (from the clock); this one derives them from the interval, so a sort is the same
// every time (a replayed action sorts as it did). Lua's own choice is no more predictable.

typedef unsigned int lk_sort_index;

enum { LK_SORT_RANDOM_ABOVE = 100 };  // intervals this long may use a shifted pivot
enum { LK_SORT_READING_FROM = 8 };     // arrays this long may be sorted by lk_sort_real_array

// a[j] = 3 (1: the array), as lk_move_set writes it, protected: the second write of a swap in a
// state's array. The move's writes are this call's for the while (the mark is for a write the
// moving call makes itself).
static int lk_sort_second_write(lua_State *L) {
  lk_shape *shape = &lk_info_of(L)->shape;
  const void *frame = shape->move.frame;
  lua_Debug self;
  if (lua_getstack(L, 0, &self)) shape->move.frame = self.i_ci;
  lk_move_set(L, 1, lua_tointeger(L, 2));
  shape->move.frame = frame;
  return 0;
}

// a[i] = top, a[j] = the value below it (both popped): elements the sort read from the array.
// In a state's array the two writes go together: when the second fails (a memory error: the
// journal or a call that grows), the first is undone before the error goes on, so that the
// array holds each element once, as a plain table always does.
static void lk_sort_set2(lua_State *L, lk_sort_index i, lk_sort_index j) {
  if (!lk_push_proxied_table(L, 1)) {  // no state's array: as Lua's
    lk_move_set(L, 1, i);
    lk_move_set(L, 1, j);
    return;
  }
  lua_pop(L, 1);
  lua_Integer mark = lk_journal_length(L);
  lk_move_set(L, 1, i);
  int value = lua_gettop(L);
  lua_pushcfunction(L, lk_sort_second_write);
  lua_pushvalue(L, 1);
  lua_pushinteger(L, (lua_Integer)j);
  lua_pushvalue(L, value);
  if (lua_pcall(L, 3, 0, 0) != LUA_OK) {
    lk_journal_undo_to(L, mark);
    lua_error(L);
  }
  lua_pop(L, 1);
}

// Whether the value at `a` sorts before the one at `b` (negative indices), one step charged.
static int lk_sort_less(lua_State *L, int a, int b) {
  lk_charge(L, 1);
  if (lua_isnil(L, 2)) return lua_compare(L, a, b, LUA_OPLT);
  lua_pushvalue(L, 2);
  lua_pushvalue(L, a - 1);
  lua_pushvalue(L, b - 2);
  lua_call(L, 2, 1);
  int less = lua_toboolean(L, -1);
  lua_pop(L, 1);
  return less;
}

// Partitions [lo, up] around the pivot P on top of the stack, which is a[up - 1] too; returns
// where P ends. Before: a[lo] <= P <= a[up].
static lk_sort_index lk_sort_partition(lua_State *L, lk_sort_index lo, lk_sort_index up) {
  lk_sort_index i = lo, j = up - 1;
  for (;;) {
    while (lua_geti(L, 1, ++i), lk_sort_less(L, -1, -2)) {
      if (i == up - 1) luaL_error(L, "invalid order function for sorting");
      lua_pop(L, 1);
    }
    while (lua_geti(L, 1, --j), lk_sort_less(L, -3, -1)) {
      if (j < i) luaL_error(L, "invalid order function for sorting");
      lua_pop(L, 1);
    }
    if (j < i) {
      lua_pop(L, 1);
      lk_sort_set2(L, up - 1, i);
      return i;
    }
    lk_sort_set2(L, i, j);
  }
}

// A pivot in the middle half of [lo, up], shifted by `shift`.
static lk_sort_index lk_sort_pivot(lk_sort_index lo, lk_sort_index up, unsigned shift) {
  lk_sort_index quarter = (up - lo) / 4;
  return shift % (quarter * 2) + (lo + quarter);
}

static void lk_sort_interval(lua_State *L, lk_sort_index lo, lk_sort_index up, unsigned shift) {
  while (lo < up) {
    lua_geti(L, 1, lo);
    lua_geti(L, 1, up);
    if (lk_sort_less(L, -1, -2)) lk_sort_set2(L, lo, up);
    else lua_pop(L, 2);
    if (up - lo == 1) return;
    lk_sort_index p = up - lo < LK_SORT_RANDOM_ABOVE || shift == 0
        ? (lo + up) / 2 : lk_sort_pivot(lo, up, shift);
    lua_geti(L, 1, p);
    lua_geti(L, 1, lo);
    if (lk_sort_less(L, -2, -1)) {
      lk_sort_set2(L, p, lo);
    } else {
      lua_pop(L, 1);
      lua_geti(L, 1, up);
      if (lk_sort_less(L, -1, -2)) lk_sort_set2(L, p, up);
      else lua_pop(L, 2);
    }
    if (up - lo == 2) return;
    lua_geti(L, 1, p);  // the pivot
    lua_pushvalue(L, -1);
    lua_geti(L, 1, up - 1);
    lk_sort_set2(L, p, up - 1);
    p = lk_sort_partition(L, lo, up);
    lk_sort_index smaller;
    if (p - lo < up - p) {  // recurse into the smaller side: the C stack stays O(log n)
      lk_sort_interval(L, lo, p - 1, shift);
      smaller = p - lo;
      lo = p + 1;
    } else {
      lk_sort_interval(L, p + 1, up, shift);
      smaller = up - p;
      up = p - 1;
    }
    if ((up - lo) / 128 > smaller) shift = (lo * 2654435761u) ^ (up * 40503u) ^ 1u;
  }
}

// Sorts the plain table at 1 by the order function at 2, [1, length at 3]: a state's array
// sorted in a copy (lk_sort_in_copy), protected.
static int lk_sort_copy(lua_State *L) {
  lua_Integer length = lua_tointeger(L, 3);
  lua_settop(L, 2);
  lk_sort_interval(L, 1, (lk_sort_index)length, 0);
  return 0;
}

// Pushes a plain copy of the real elements of the state's array at 1 (its real table at `real`)
// and returns its index.
static int lk_sort_copy_of(lua_State *L, int real, lua_Integer length) {
  lua_createtable(L, (int)length, 0);
  int copy = lua_gettop(L);
  for (lua_Integer i = 1; i <= length; i++) {
    lk_charge(L, 1);
    lua_rawgeti(L, real, i);
    lua_rawseti(L, copy, i);
  }
  return copy;
}

// Sorts the copy at `copy` by Lua's algorithm with the order function at 2, protected, and
// returns the status, the error on top when the sort raised; `*wrote_state` says whether the
// order function wrote the state meanwhile. The copy's swaps are no state's moves: no mark.
static int lk_sort_in_copy(lua_State *L, int copy, lua_Integer length, int *wrote_state) {
  lk_info *info = lk_info_of(L);
  lua_Integer writes = info->shape.writes;
  lk_shape_move outer = lk_move_begin(L, 0);
  lua_pushcfunction(L, lk_sort_copy);
  lua_pushvalue(L, copy);
  lua_pushvalue(L, 2);
  lua_pushinteger(L, length);
  int status = lua_pcall(L, 3, 0, 0);
  lk_move_end(L, outer);
  *wrote_state = info->shape.writes != writes;
  return status;
}

// Writes the order of the copy at 3 (real elements) back to the state's array at 1 (its real
// table at 2), [1, length at 4]: each slot that changed moved in place, journaled and marked
// (lk_state_set_moved), its view told first. Protected (lk_sort_write_back).
static int lk_sort_write_back_protected(lua_State *L) {
  const int real = 2, copy = 3;
  lua_Integer length = lua_tointeger(L, 4);
  for (lua_Integer i = 1; i <= length; i++) {
    lk_charge(L, 1);
    lua_rawgeti(L, copy, i);
    lua_rawgeti(L, real, i);
    int same = lua_rawequal(L, -1, -2);
    lua_pop(L, 1);
    if (same) {
      lua_pop(L, 1);
    } else {
      lk_view_forget_index(L, 1, i);  // written behind its view
      lk_state_set_moved(L, real, i);
    }
  }
  return 0;
}

// The order of the copy at `copy` written back to the state's array at 1 (its real table at
// `real`), all or nothing: when a write fails (the journal's room, a spent budget), those made
// are undone before the error goes on. A sort that failed half way through its writes left
// elements twice and others not at all, which a reducer catching the error then committed.
static void lk_sort_write_back(lua_State *L, int real, int copy, lua_Integer length) {
  lua_Integer mark = lk_journal_length(L);
  lua_pushcfunction(L, lk_sort_write_back_protected);
  lua_pushvalue(L, 1);
  lua_pushvalue(L, real);
  lua_pushvalue(L, copy);
  lua_pushinteger(L, length);
  if (lua_pcall(L, 4, 0, 0) != LUA_OK) {
    lk_journal_undo_to(L, mark);
    lua_error(L);
  }
}

// table.sort(t, comp) in place, each read and write through `t` (a state array's proxy: each
// write journaled, an element moving within the array marked, so not checked again): what
// lua5.4 does, step for step. An order function that reads or writes the array while it is
// sorted sees, and changes, what it would under lua5.4.
static int lk_sort_in_place(lua_State *L, lua_Integer length) {
  lua_settop(L, 2);
  lk_shape_move outer = lk_move_begin(L, 1);
  lk_sort_interval(L, 1, (lk_sort_index)length, 0);
  lk_move_end(L, outer);
  return 0;
}

// table.sort(state_array, comp) with an order function that only reads (lk_reads_only), the
// array's real table on top: the real elements sorted in a plain copy by Lua's algorithm, the
// same comparisons in the same order, so the order function reads them as plain tables (the
// VM's lookups, no metamethod) and no element proxy is made; then each slot that changed is
// written back to the real table, journaled: a swap costs what it costs on a plain table. The
// function can reach nothing but the two elements it is given (not the array), so it cannot
// tell the copy from the array. When it raises (not a stop), the sort is made again in place,
// from the array as it was: its comparisons are the same, so it raises at the same one, with
// the message a proxy gives (a real array's marker names it "array" where a proxy is a
// "table"), and leaves the array as Lua's would.
static int lk_sort_real_array(lua_State *L, lua_Integer length) {
  int real = lua_gettop(L);
  int copy = lk_sort_copy_of(L, real, length);
  int wrote_state;
  int status = lk_sort_in_copy(L, copy, length, &wrote_state);
  if (wrote_state) {
    return luaL_error(L, "table.sort: the state changed while an order function that only "
                         "reads was called (a bug of this runtime)");
  }
  if (status == LUA_ERRRUN && lk_stopped(L) == LK_FAILURE_NONE) return lk_sort_in_place(L, length);
  if (status != LUA_OK) return lua_error(L);  // a stop: the error on top
  lk_sort_write_back(L, real, copy, length);
  return 0;
}

// table.sort(list [, comp])
static int lk_table_sort(lua_State *L) {
  lua_Integer length = lk_table_length(L, 1, LK_TABLE_READ | LK_TABLE_WRITE);
  if (length > 1) {
    luaL_argcheck(L, length < INT_MAX, 1, "array too big");
    if (!lua_isnoneornil(L, 2)) luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_settop(L, 2);
    if (!lua_isnil(L, 2) && lk_push_writable_real(L, 1)) {
      // The look at the order function costs some 9,000 instructions (its dump, the strings'
      // metatable): for fewer elements it costs more than it saves (~730 a comparison).
      if (length >= LK_SORT_READING_FROM && lk_reads_only(L, 2)) {
        return lk_sort_real_array(L, length);
      }
    }
    return lk_sort_in_place(L, length);
  }
  return 0;
}

void lk_table_library_open(lua_State *L) {
  static const luaL_Reg functions[] = {
      {"insert", lk_table_insert}, {"remove", lk_table_remove}, {"move", lk_table_move},
      {"concat", lk_table_concat}, {"unpack", lk_table_unpack}, {"sort", lk_table_sort},
      {NULL, NULL},
  };
  lua_getglobal(L, "table");
  luaL_setfuncs(L, functions, 0);
  lua_pop(L, 1);
}
