// What the open transaction changed in a state, for a host that shows it (`composable run`
// printing each action's differences) without keeping a copy of the state between actions.
//
// The journal holds, for each write, the table, the key and the value before it. The first
// entry of a (table, key) holds what was there when the transaction began, so a table's old
// contents are its contents now with those first old values laid over them. What the host
// still needs is which tables to look into: a table changed if it was written or a table in it
// (before or now) changed. That is found by one walk over the state, before and after:
// without parent links a write cannot say which tables hold the table it wrote. The walk marks
// a table it meets again while still inside it as changed, which may send the host into a
// table that did not change (it then finds nothing) but never past one that did.
#include "LuaState.h"

#include "AddressMarks.h"

#include <math.h>
#include <string.h>

enum { LK_CHANGES_MAX_DEPTH = 200 };  // LuaValue.maximumDepth

// Stack slots of the protected body: 1 the root's real table, then the three tables it makes.
enum { ROOT = 1, OLD_VALUES = 2, TABLES = 3, CHANGED = 4, MARKS = 5 };

static const char lk_was_nil = 0;  // an old value that was nil

// MARK: - The journal, one entry a slot

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

// Pushes the journal as this file reads it when it holds shifts: one entry for each (table,
// key) written, with its first old value (the value when the transaction began), in no set
// order; a table whose [0] is the count of entries and whose [3 * i + f] is field f (1 table, 2
// key, 3 old value) of entry i. Every reader here wants only a key's first entry, so a list
// shifted a thousand times is a thousand keys, not a million slots. The walk goes newest first:
// a slot's old value under a shift is what the slot next to it held just after the shift, which
// the entries after it (walked already) or the table now give; the oldest entry of a key walked
// last is its first. Memory as the keys written; time as the slots the shifts moved, which the
// action was charged for, and a reading inside an action (`charge`) is charged for again.
static lua_Integer lk_push_journal_slots(lua_State *L, int charge) {
  luaL_checkstack(L, 16, "the journal's entries");
  lua_Integer length = lk_journal_length(L);
  lua_newtable(L);
  int slots = lua_gettop(L);
  lua_newtable(L);  // table -> { key -> value just after the entry walked, or the nil marker }
  int after = slots + 1;
  lua_newtable(L);  // table -> { key -> the old value of its oldest entry walked }
  int first = slots + 2;
  for (lua_Integer entry = length - 1; entry >= 0; entry--) {
    int table = first + 1, key = first + 2, old = first + 3;
    for (int field = 1; field <= 3; field++) lk_journal_push_field(L, entry, field);
    if (lk_is_adoption_key(L, key)) {  // no write: every reader skips it
      lua_settop(L, first);
      continue;
    }
    if (lk_is_shift_key(L, key)) {
      lk_shift shift = lk_shift_of(L, old);
      if (charge) lk_charge(L, shift.count);
      lua_createtable(L, shift.count < INT32_MAX ? (int)shift.count : 0, 0);
      int olds = old + 1;
      for (lua_Integer j = 0; j < shift.count; j++) {
        if (j == 0) lk_push_shift_first_old(L, old);
        else lk_push_value_after(L, after, table, shift.to + (j - 1) * shift.direction);
        lua_rawseti(L, olds, j + 1);
      }
      lk_push_after_of(L, after, table);
      lk_push_after_of(L, first, table);
      int noted_after = olds + 1, noted_first = olds + 2;
      for (lua_Integer j = 0; j < shift.count; j++) {
        lua_pushinteger(L, shift.to + j * shift.direction);
        lua_rawgeti(L, olds, j + 1);
        lk_note_after(L, noted_after, noted_first + 1, noted_first + 2);
        lk_note_after(L, noted_first, noted_first + 1, noted_first + 2);
        lua_pop(L, 2);
      }
    } else {
      lk_push_after_of(L, after, table);
      lk_note_after(L, lua_gettop(L), key, old);
      lua_pop(L, 1);
      lk_push_after_of(L, first, table);
      lk_note_after(L, lua_gettop(L), key, old);
    }
    lua_settop(L, first);
  }
  lua_Integer count = 0;
  lua_pushnil(L);
  while (lua_next(L, first) != 0) {  // table, { key -> first old value }
    int table = lua_gettop(L) - 1, keys = table + 1;
    lua_pushnil(L);
    while (lua_next(L, keys) != 0) {  // key, old value
      if (lua_touserdata(L, -1) == &lk_was_nil) {
        lua_pop(L, 1);
        lua_pushnil(L);
      }
      lua_pushvalue(L, table);
      lua_rawseti(L, slots, count * 3 + 1);
      lua_pushvalue(L, -2);
      lua_rawseti(L, slots, count * 3 + 2);
      lua_rawseti(L, slots, count * 3 + 3);
      count += 1;
    }
    lua_pop(L, 1);
  }
  lua_pushinteger(L, count);
  lua_rawseti(L, slots, 0);
  lua_settop(L, slots);
  return count;
}

// The journal as this file reads it: (table, key, old value) entries. A shift entry
// (ArrayShifts.c) stands for the slots it moved: while the journal holds one, each reading
// below begins by making lk_push_journal_slots's table, each key's first entry, kept in the
// registry until the reading ends (or, if it raised, until the next begins).
static const char lk_slots_key = 0;

static void lk_entries_begin(lua_State *L, int charge) {
  if (!lk_journal_has_shifts(L)) return;
  lk_push_journal_slots(L, charge);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &lk_slots_key);
}

static void lk_entries_end(lua_State *L) {
  lua_pushnil(L);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &lk_slots_key);
}

// Pushes the table of slots of the reading under way.
static void lk_push_slots(lua_State *L) {
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_slots_key) != LUA_TTABLE) {
    luaL_error(L, "the journal holds shifts, and no reading of it began");
  }
}

static lua_Integer lk_entries_length(lua_State *L) {
  if (!lk_journal_has_shifts(L)) return lk_journal_length(L);
  lk_push_slots(L);
  lua_rawgeti(L, -1, 0);
  lua_Integer length = lua_tointeger(L, -1);
  lua_pop(L, 2);
  return length;
}

static void lk_entry_push_field(lua_State *L, lua_Integer entry, int field) {
  if (!lk_journal_has_shifts(L)) {
    lk_journal_push_field(L, entry, field);
    return;
  }
  lk_push_slots(L);
  lua_rawgeti(L, -1, entry * 3 + field);
  lua_remove(L, -2);
}

int lk_changes_is_nil_marker(lua_State *L, int index) {
  return lua_type(L, index) == LUA_TLIGHTUSERDATA && lua_touserdata(L, index) == &lk_was_nil;
}

// The first old value of each (table, key) the journal holds, into the table at `into`:
// into[table] = { [key] = old value or the nil marker }, keyed by the table itself or, with
// `by_address`, by its address (a walk that meets tables by address looks them up so).
static void lk_collect_first_old_values(lua_State *L, int into, int by_address) {
  lua_Integer length = lk_entries_length(L);
  for (lua_Integer entry = 0; entry < length; entry++) {
    lk_entry_push_field(L, entry, 1);
    lk_entry_push_field(L, entry, 2);
    if (lk_is_adoption_key(L, -1) || lua_type(L, -2) != LUA_TTABLE || lk_is_bookkeeping(L, -2)) {
      lua_pop(L, 2);
      continue;
    }
    const void *address = lua_topointer(L, -2);
    int found;
    if (by_address) {
      found = lua_rawgetp(L, into, address);
    } else {
      lua_pushvalue(L, -2);
      found = lua_rawget(L, into);
    }
    if (found != LUA_TTABLE) {
      lua_pop(L, 1);
      lua_newtable(L);
      if (by_address) {
        lua_pushvalue(L, -1);
        lua_rawsetp(L, into, address);
      } else {
        lua_pushvalue(L, -3);
        lua_pushvalue(L, -2);
        lua_rawset(L, into);
      }
    }
    lua_pushvalue(L, -2);
    if (lua_rawget(L, -2) == LUA_TNIL) {  // the first write of the key: what it began as
      lua_pop(L, 1);
      lua_pushvalue(L, -2);
      lk_entry_push_field(L, entry, 3);
      if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_pushlightuserdata(L, (void *)&lk_was_nil);
      }
      lua_rawset(L, -3);
    } else {
      lua_pop(L, 1);
    }
    lua_pop(L, 3);
  }
}

// What the walk marks a table with (AddressMarks.h): written by the transaction; being visited
// (taken as changed if met again inside itself); visited, changed or not.
enum { WRITTEN = 1, VISITING = 2, VISITED_CHANGED = 4, VISITED_UNCHANGED = 8 };

static int lk_visit(lua_State *L, int table, int depth);

// Visits the value at the top if it is a table; returns whether it is one that changed.
static int lk_visit_value_at_top(lua_State *L, int depth) {
  return lua_type(L, -1) == LUA_TTABLE && lk_visit(L, lua_gettop(L), depth);
}

// Notes, for a table the transaction did not write, the key (at `key`) of one of its fields that
// holds a table that changed: into the list at `keys`, made at its first key.
static void lk_note_changed_key(lua_State *L, int keys, int key) {
  if (lua_type(L, keys) != LUA_TTABLE) {
    lua_newtable(L);
    lua_replace(L, keys);
  }
  lua_pushvalue(L, key);
  lua_rawseti(L, keys, (lua_Integer)lua_rawlen(L, keys) + 1);
}

// Visits the table at `table` (absolute) and everything in it, before and now, and notes in
// CHANGED each that changed (it was written, or holds a table that changed): a table the
// transaction wrote as true; one it did not, whose fields are then the same before and now but
// for the tables in them that changed, as the list of those fields' keys, with `n` its length if
// its keys are 1 to n, so that the host reads those fields alone. Returns whether it changed.
static int lk_visit(lua_State *L, int table, int depth) {
  const void *address = lua_topointer(L, table);
  unsigned marks = lk_address_marks_of(L, MARKS, address);
  if (marks & (VISITING | VISITED_CHANGED)) return 1;  // met before, or inside itself
  if (marks & VISITED_UNCHANGED) return 0;
  // Deeper than a host reads: changed, so that nothing is skipped on its word.
  if (depth >= LK_CHANGES_MAX_DEPTH) return 1;
  luaL_checkstack(L, 8, "a state nested too deeply");
  lk_address_marks_set(L, MARKS, address, marks | VISITING);
  int written = (marks & WRITTEN) != 0, changed = written;
  lua_Integer length = (lua_Integer)lua_rawlen(L, table), count = 0, in_sequence = 0;
  lua_pushnil(L);  // the keys of fields holding changed tables, a list once there is one
  int keys = lua_gettop(L);
  lua_pushnil(L);
  while (lk_next_visible(L, table) != 0) {
    count += 1;
    if (lua_isinteger(L, -2)) {
      lua_Integer key = lua_tointeger(L, -2);
      in_sequence += key >= 1 && key <= length;
    }
    if (lk_visit_value_at_top(L, depth + 1)) {
      changed = 1;
      if (!written) lk_note_changed_key(L, keys, lua_gettop(L) - 1);
    }
    lua_pop(L, 1);
  }
  if (written && lua_rawgetp(L, OLD_VALUES, address) == LUA_TTABLE) {
    int old_values = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, old_values) != 0) {
      lk_visit_value_at_top(L, depth + 1);  // a table taken out: the walk reads it
      lua_pop(L, 1);
    }
  }
  lua_settop(L, keys);
  marks = lk_address_marks_of(L, MARKS, address);
  lk_address_marks_set(
    L, MARKS, address,
    (marks & WRITTEN) | (changed ? VISITED_CHANGED : VISITED_UNCHANGED));
  if (changed) {
    if (written) {
      lua_pushboolean(L, 1);
    } else {
      if (lua_type(L, keys) != LUA_TTABLE) lua_newtable(L);  // changed only inside itself
      else lua_pushvalue(L, keys);
      if (count > 0 && count == length && in_sequence == length) {
        lua_pushinteger(L, length);
        lua_setfield(L, -2, "n");
      }
    }
    lua_rawsetp(L, CHANGED, address);
  }
  lua_pop(L, 1);
  return changed;
}

static int lk_transaction_changes_protected(lua_State *L) {
  lua_settop(L, ROOT);
  lk_entries_begin(L, 0);  // the host's, after the action
  lua_newtable(L);  // OLD_VALUES
  lua_newtable(L);  // TABLES
  lua_newtable(L);  // CHANGED
  lk_address_marks_new(L, 256);  // MARKS
  lk_collect_first_old_values(L, OLD_VALUES, 1);
  lk_entries_end(L);
  lua_pushnil(L);
  while (lua_next(L, OLD_VALUES) != 0) {
    lk_address_marks_set(L, MARKS, lua_touserdata(L, -2), WRITTEN);
    lua_pop(L, 1);
  }
  lua_pushvalue(L, ROOT);
  lua_rawsetp(L, TABLES, lua_topointer(L, ROOT));
  lk_visit(L, ROOT, 0);
  lua_createtable(L, 3, 0);
  for (int slot = OLD_VALUES; slot <= CHANGED; slot++) {
    lua_pushvalue(L, slot);
    lua_rawseti(L, -2, slot - 1);
  }
  return 1;
}

int lk_transaction_changes(lua_State *L, int root) {
  root = lua_absindex(L, root);
  lua_pushcfunction(L, lk_transaction_changes_protected);
  if (!lk_push_proxied_table(L, root)) lua_pushvalue(L, root);
  return lk_pcall_uncapped(L, 1, 1);
}

// MARK: - Whether a field changed

// Whether the values at `a` and `b` are one value as the state holds it: the same table or
// string, or numbers of one subtype and the same bits (1 and 1.0, 0.0 and -0.0 differ, as a
// saved file tells them apart). NaNs are one value when of one sign, as `LuaValue`'s `==` has
// it: `tostring` and a saved file tell the signs apart (`-nan`, `-(0/0)`), and nothing but
// `string.pack` tells a NaN's other bits.
static int lk_same_value(lua_State *L, int a, int b) {
  int type = lua_type(L, a);
  if (type != lua_type(L, b)) return 0;
  if (type != LUA_TNUMBER) return lua_rawequal(L, a, b);
  int integer = lua_isinteger(L, a);
  if (integer != lua_isinteger(L, b)) return 0;
  if (integer) return lua_tointeger(L, a) == lua_tointeger(L, b);
  lua_Number x = lua_tonumber(L, a), y = lua_tonumber(L, b);
  if (isnan(x) && isnan(y)) return !signbit(x) == !signbit(y);
  return memcmp(&x, &y, sizeof x) == 0;
}

// Stack slots of lk_field_changed_protected: the root's real table, the field's key (nil: the
// whole state), then the tables it makes.
enum { FIELD_ROOT = 1, FIELD_KEY = 2, FIRST_OLD = 3, CHANGED_TABLES = 4, SEEN = 5, PENDING = 6 };

// Whether the root's fields but FIELD_KEY hold no table: then every table of the state is
// reached through the field, or through nothing at all (a table taken out, whose parent changed
// with it), and a table that changed is the field's.
static int lk_only_field_holds_tables(lua_State *L) {
  int others_hold_tables = 0;
  lua_pushnil(L);
  while (!others_hold_tables && lk_next_visible(L, FIELD_ROOT) != 0) {  // key, value
    others_hold_tables = lua_type(L, -1) == LUA_TTABLE && !lua_rawequal(L, -2, FIELD_KEY);
    lua_pop(L, 1);
  }
  if (others_hold_tables) lua_pop(L, 1);  // the key the walk stopped at
  return !others_hold_tables;
}

// Whether an entry before `entry` is of the same (table, key) as the table and key on top,
// looking back from the newest at most `*budget` entries, which it takes from the budget;
// -1 when the budget ran out first.
static int lk_written_before(lua_State *L, lua_Integer entry, lua_Integer *budget) {
  for (lua_Integer earlier = entry - 1; earlier >= 0; earlier--) {
    if (--*budget < 0) return -1;
    lk_entry_push_field(L, earlier, 1);
    int same = lua_rawequal(L, -1, -3);
    lua_pop(L, 1);
    if (!same) continue;
    lk_entry_push_field(L, earlier, 2);
    same = lua_rawequal(L, -1, -2);
    lua_pop(L, 1);
    if (same) return 1;
  }
  return 0;
}

// The answer without building anything, as most actions allow: a (table, key) changed when its
// first entry's old value is not what it holds now, and the journal is read in order, so the
// first entry that differs and has no entry before it is a change. 1 when it is the field's (at
// the root, or below with the root's other fields holding no table), 0 when no entry differs
// but at the root's other fields, -1 when the walk must tell (a table below changed while
// other fields hold tables), or when looking back for earlier entries passed a budget linear in
// the journal (values written and written back, many times).
static int lk_field_changed_quickly(lua_State *L) {
  lua_Integer length = lk_entries_length(L);
  lua_Integer budget = 4 * length + 64;
  for (lua_Integer entry = 0; entry < length; entry++) {
    lk_entry_push_field(L, entry, 1);
    lk_entry_push_field(L, entry, 2);
    if (lk_is_adoption_key(L, -1) || lua_type(L, -2) != LUA_TTABLE) {
      lua_pop(L, 2);
      continue;
    }
    lua_pushvalue(L, -1);
    lua_rawget(L, -3);
    lk_entry_push_field(L, entry, 3);
    int differs = !lk_same_value(L, -1, -2);
    lua_pop(L, 2);
    if (!differs) {
      lua_pop(L, 2);
      continue;
    }
    if (lk_is_bookkeeping(L, -2)) {  // beside the state, not in it
      lua_pop(L, 2);
      continue;
    }
    int before = lk_written_before(L, entry, &budget);
    int at_root = lua_rawequal(L, -2, FIELD_ROOT);
    int is_field = lua_isnil(L, FIELD_KEY) || lua_rawequal(L, -1, FIELD_KEY);
    lua_pop(L, 2);
    if (before < 0) return -1;
    if (before) continue;  // its first entry, read already, said whether it changed
    if (at_root) {
      if (is_field) return 1;
      continue;  // another field of the root: not asked about
    }
    return lua_isnil(L, FIELD_KEY) || lk_only_field_holds_tables(L) ? 1 : -1;
  }
  return 0;
}

// Whether the open transaction changed ROOT[KEY], the field or anything it reaches (or, with no
// key, anything of the state). A write counts when it left a value other than the one the
// transaction began with: `x = nil` over nil, the same table again, or a value written and then
// written back, changes nothing. From the journal, each (table, key)'s first old value against
// what it holds now gives the tables that changed; then one walk over what the field reaches
// now, which ends at the first changed table it meets (a table it reached only before lost its
// place through a change to a table it still reaches, or to the field). Pushes a boolean.
static int lk_field_changed_body(lua_State *L) {
  lua_settop(L, FIELD_KEY);
  int quick = lk_field_changed_quickly(L);
  if (quick >= 0) {
    lua_pushboolean(L, quick);
    return 1;
  }
  lua_newtable(L);  // FIRST_OLD: table -> { key -> first old value, or the nil marker }
  lua_newtable(L);  // CHANGED_TABLES: address -> true, the root excepted
  lk_collect_first_old_values(L, FIRST_OLD, 0);
  int any = 0;  // a table but the root changed
  lua_pushnil(L);
  while (lua_next(L, FIRST_OLD) != 0) {  // table, { key -> old }
    int table = lua_gettop(L) - 1, olds = table + 1;
    int changed = 0;
    lua_pushnil(L);
    while (!changed && lua_next(L, olds) != 0) {  // key, old
      if (lk_changes_is_nil_marker(L, -1)) {
        lua_pop(L, 1);
        lua_pushnil(L);
      }
      lua_pushvalue(L, -2);
      lua_rawget(L, table);
      changed = !lk_same_value(L, -1, -2);
      if (changed && lua_rawequal(L, table, FIELD_ROOT)) {
        // The root: only the field counts (any field, with no key).
        if (lua_isnil(L, FIELD_KEY) || lua_rawequal(L, -3, FIELD_KEY)) {
          lua_pushboolean(L, 1);
          return 1;
        }
        changed = 0;
      }
      lua_pop(L, 2);
    }
    if (changed) {
      lua_pop(L, 1);  // the key the inner walk stopped at
      lua_pushboolean(L, 1);
      lua_rawsetp(L, CHANGED_TABLES, lua_topointer(L, table));
      any = 1;
    }
    lua_pop(L, 1);
  }
  if (!any) {
    lua_pushboolean(L, 0);
    return 1;
  }
  if (lua_isnil(L, FIELD_KEY)) {  // the whole state: a table of it changed
    lua_pushboolean(L, 1);
    return 1;
  }
  // The todos list beside its filter asks this on every action; the walk below would cost it
  // the whole list each time.
  if (lk_only_field_holds_tables(L)) {
    lua_pushboolean(L, 1);
    return 1;
  }
  // A walk with a list of tables still to look into, not recursion: however deep the state.
  lua_newtable(L);  // SEEN
  lua_newtable(L);  // PENDING
  lua_pushvalue(L, FIELD_KEY);
  if (lua_rawget(L, FIELD_ROOT) != LUA_TTABLE) {
    lua_pushboolean(L, 0);
    return 1;
  }
  lua_rawseti(L, PENDING, 1);
  lua_Integer pending = 1;
  while (pending > 0) {
    lua_rawgeti(L, PENDING, pending);
    lua_pushnil(L);
    lua_rawseti(L, PENDING, pending--);
    if (lua_rawgetp(L, CHANGED_TABLES, lua_topointer(L, -1)) != LUA_TNIL) {
      lua_pushboolean(L, 1);
      return 1;
    }
    lua_pop(L, 1);
    int table = lua_gettop(L);
    lua_pushnil(L);
    while (lk_next_visible(L, table) != 0) {  // key, value
      if (lua_type(L, -1) == LUA_TTABLE) {
        const void *inner = lua_topointer(L, -1);
        int seen = lua_rawgetp(L, SEEN, inner) != LUA_TNIL;
        lua_pop(L, 1);
        if (!seen) {
          lua_pushboolean(L, 1);
          lua_rawsetp(L, SEEN, inner);
          lua_pushvalue(L, -1);
          lua_rawseti(L, PENDING, ++pending);
        }
      }
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  lua_pushboolean(L, 0);
  return 1;
}

static int lk_field_changed_protected(lua_State *L) {
  lua_settop(L, FIELD_KEY);
  lk_entries_begin(L, 0);  // the host's, after the action
  int results = lk_field_changed_body(L);
  lk_entries_end(L);
  return results;
}

int lk_transaction_changed_field(lua_State *L, int root, int key) {
  root = lua_absindex(L, root);
  key = lua_absindex(L, key);
  if (lk_journal_length(L) == 0) return 0;
  lua_pushcfunction(L, lk_field_changed_protected);
  if (!lk_push_proxied_table(L, root)) lua_pushvalue(L, root);
  lua_pushvalue(L, key);
  int changed = 1;  // out of memory: taken as changed, so that nothing goes unsaved
  if (lk_pcall_uncapped(L, 2, 1) == LUA_OK) changed = lua_toboolean(L, -1);
  lua_pop(L, 1);
  return changed;
}

// MARK: - What a table held when the transaction began

// Pushes what real[key] held when the open transaction began: the old value of its first
// journal entry, or what it holds now if the transaction did not write it.
static void lk_push_value_before(lua_State *L, int real, int key) {
  lua_Integer length = lk_entries_length(L);
  lk_charge(L, length + 1);  // a look at every entry: bounded by the budget
  for (lua_Integer entry = 0; entry < length; entry++) {
    lk_entry_push_field(L, entry, 1);
    int same = lua_rawequal(L, -1, real);
    lua_pop(L, 1);
    if (!same) continue;
    lk_entry_push_field(L, entry, 2);
    same = !lk_is_adoption_key(L, -1) && lua_rawequal(L, -1, key);
    lua_pop(L, 1);
    if (same) {
      lk_entry_push_field(L, entry, 3);
      return;
    }
  }
  lua_pushvalue(L, key);
  lua_rawget(L, real);
}

// The real table of the state table at `index` (or the table itself, a plain one: it has no
// journal entries, so what it held is what it holds), pushed; raises for a value not a table.
static int lk_push_table_argument(lua_State *L, int index) {
  luaL_checktype(L, index, LUA_TTABLE);
  if (!lk_push_proxied_table(L, index)) lua_pushvalue(L, index);
  return lua_gettop(L);
}

// journal.was_set(t, key): whether the state table t held a value at key when the open
// transaction began (what an action found before it changed anything).
static int lk_journal_was_set(lua_State *L) {
  luaL_checkany(L, 2);
  int real = lk_push_table_argument(L, 1);
  lk_entries_begin(L, 1);
  lk_push_value_before(L, real, 2);
  lk_entries_end(L);
  lua_pushboolean(L, !lua_isnil(L, -1));
  return 1;
}

static int lk_had_element(lua_State *L);

// journal.had_element(t, key, field, value): whether t[key], as it was when the open
// transaction began, held a table whose `field` was `value` (a for_each element by its id,
// though the parent may have removed it, or replaced the whole list, since).
static int lk_journal_had_element(lua_State *L) {
  luaL_checkany(L, 4);
  lua_settop(L, 4);
  lk_entries_begin(L, 1);
  lk_had_element(L);
  lk_entries_end(L);
  return 1;
}

// The body of journal.had_element (1 to 4 its arguments): pushes its answer.
static int lk_had_element(lua_State *L) {
  lk_push_value_before(L, lk_push_table_argument(L, 1), 2);
  if (lua_type(L, -1) != LUA_TTABLE) {
    lua_pushboolean(L, 0);
    return 1;
  }
  int real = lua_gettop(L);
  // Every key the list holds now or held: the keys now, and those the journal names for it.
  lua_newtable(L);
  int keys = lua_gettop(L);
  lua_pushnil(L);
  while (lk_next_visible(L, real) != 0) {
    lua_pop(L, 1);
    lua_pushvalue(L, -1);
    lua_pushboolean(L, 1);
    lua_rawset(L, keys);
  }
  lua_Integer length = lk_entries_length(L);
  for (lua_Integer entry = 0; entry < length; entry++) {
    lk_entry_push_field(L, entry, 1);
    int same = lua_rawequal(L, -1, real);
    lua_pop(L, 1);
    if (!same) continue;
    lk_entry_push_field(L, entry, 2);
    if (lk_is_adoption_key(L, -1)) {
      lua_pop(L, 1);
      continue;
    }
    lua_pushboolean(L, 1);
    lua_rawset(L, keys);
  }
  lk_charge(L, length);
  lua_pushnil(L);
  while (lua_next(L, keys) != 0) {
    lua_pop(L, 1);
    lk_push_value_before(L, real, lua_gettop(L));
    if (lua_type(L, -1) == LUA_TTABLE) {
      lk_push_value_before(L, lua_gettop(L), 3);
      int found = lua_rawequal(L, -1, 4);
      lua_pop(L, 2);
      if (found) {
        lua_pushboolean(L, 1);
        return 1;
      }
    } else {
      lua_pop(L, 1);
    }
  }
  lua_pushboolean(L, 0);
  return 1;
}

// The registry's key for the journal module's `kept`.
static const char lk_kept_key = 0;

int lk_journal_clear_kept(lua_State *L) {
  // A copy that holds none of them: each is emptied.
  lua_newtable(L);
  int status = lk_journal_restore_kept(L, -1);
  if (status != LUA_OK) lua_replace(L, -2);  // the message in the copy's place
  lua_pop(L, status == LUA_OK ? 1 : 0);
  return status;
}

static int lk_journal_copy_kept_protected(lua_State *L) {
  lua_newtable(L);  // 1: the copy
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_kept_key) != LUA_TTABLE) {
    lua_pop(L, 1);
    return 1;
  }
  lua_pushnil(L);
  while (lua_next(L, 2) != 0) {
    // 3 the name, 4 its table (a proxy: its real table's entries are read)
    if (lua_type(L, 4) == LUA_TTABLE) {
      if (!lk_push_proxied_table(L, 4)) lua_pushvalue(L, 4);
      int real = lua_gettop(L);
      lua_newtable(L);
      lua_pushnil(L);
      while (lua_next(L, real) != 0) {
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, -4);
      }
      lua_pushvalue(L, 3);
      lua_insert(L, -2);
      lua_rawset(L, 1);
      lua_settop(L, 4);
    }
    lua_pop(L, 1);
  }
  lua_settop(L, 1);
  return 1;
}

int lk_journal_copy_kept(lua_State *L) {
  lua_pushcfunction(L, lk_journal_copy_kept_protected);
  return lk_pcall_uncapped(L, 0, 1);
}

int lk_journal_restore_kept(lua_State *L, int copy) {
  copy = lua_absindex(L, copy);
  int top = lua_gettop(L);
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_kept_key) != LUA_TTABLE) {
    lua_settop(L, top);
    return LUA_OK;
  }
  lua_newtable(L);  // top + 2: for a table the copy has not
  lua_pushnil(L);
  while (lua_next(L, top + 1) != 0) {
    int status = LUA_OK;
    if (lua_type(L, -1) == LUA_TTABLE) {
      lua_pushvalue(L, -2);
      if (lua_rawget(L, copy) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_pushvalue(L, top + 2);
      }
      status = lk_state_write(L, -2, 0, lua_gettop(L));
      if (status == LUA_OK) lua_pop(L, 1);
    }
    if (status != LUA_OK) {
      lua_replace(L, top + 1);
      lua_settop(L, top + 1);
      return status;
    }
    lua_pop(L, 1);
  }
  lua_settop(L, top);
  return LUA_OK;
}

void lk_push_journal_module(lua_State *L) {
  lua_createtable(L, 0, 4);
  // `kept`: one plain table for the VM's life, shared by the sandboxes of every reload, where
  // the library keeps its bookkeeping by the composition's name (which children have effects
  // running), so that new code still cancels what the old code's children started.
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_kept_key) != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &lk_kept_key);
  }
  lua_setfield(L, -2, "kept");
  lk_push_journaled_table_function(L);
  lua_setfield(L, -2, "table");
  lua_pushcfunction(L, lk_journal_was_set);
  lua_setfield(L, -2, "was_set");
  lua_pushcfunction(L, lk_journal_had_element);
  lua_setfield(L, -2, "had_element");
}
