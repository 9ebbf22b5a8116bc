// The transaction journal: for each write, the table, the key and the value before it.
//
// It lives on the stacks of Lua threads that never run. An entry is three consecutive stack
// slots, appended with one lua_xmove: a thread's stack takes values without a table's index
// arithmetic, lookup or write barrier (the collector traverses a thread's stack whole): about
// 50 instructions a write, where three lua_rawseti into a table took 230. Forgetting a journal
// is lua_settop(thread, 0).
//
// A stack holds at most LUAI_MAXSTACK (1,000,000) slots, so the journal is a list of such
// threads, *segments* of LK_SEGMENT_ENTRIES entries, in the registry; the segment being
// written is reached through lk_info. Only C code here holds them: no Lua value leads to one.
#include "LuaState.h"

static const char lk_segments_key = 0;  // registry: the journal's segments, oldest first

// 196,608 slots a segment, under Lua's limit for one stack.
enum { LK_SEGMENT_ENTRIES = 1 << 16, LK_SEGMENT_SLOTS = LK_SEGMENT_ENTRIES * 3 };
_Static_assert(LK_JOURNAL_REPLACED_ABOVE < LK_SEGMENT_ENTRIES,
               "a journal kept after an action is one segment (lk_journal_forget)");

// The segment `index` (0: the oldest), kept alive by the list in the registry.
static lua_State *lk_segment(lua_State *L, lua_Integer index) {
  lk_info *info = lk_info_of(L);
  if (index == info->journal.segment) return info->journal.current;
  lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_segments_key);
  lua_rawgeti(L, -1, index + 1);
  lua_State *segment = lua_tothread(L, -1);
  lua_pop(L, 2);
  return segment;
}

// A list of one new, empty segment, made the journal. Raises if it cannot be made (the old
// journal then stays).
static void lk_new_segments(lua_State *L) {
  lk_info *info = lk_info_of(L);
  lua_createtable(L, 1, 0);
  lua_State *segment = lua_newthread(L);
  lua_rawseti(L, -2, 1);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &lk_segments_key);
  info->journal.current = segment;
  info->journal.segment = 0;
  info->journal.room = 0;
}

static int lk_new_segments_protected(lua_State *L) {
  lk_new_segments(L);
  return 0;
}

void lk_journal_open(lua_State *L) { lk_new_segments(L); }

// Moves the journal on to the next segment, the one kept from an earlier action or a new one.
static void lk_next_segment(lua_State *L) {
  lk_info *info = lk_info_of(L);
  lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_segments_key);
  lua_Integer next = info->journal.segment + 1;
  if (lua_rawgeti(L, -1, next + 1) != LUA_TTHREAD) {
    lua_pop(L, 1);
    lua_newthread(L);
    lua_pushvalue(L, -1);
    lua_rawseti(L, -3, next + 1);  // before the switch: if the list cannot grow, nothing moved
  }
  info->journal.current = lua_tothread(L, -1);
  lua_settop(info->journal.current, 0);  // emptied already, by the pops of an undo or by a forget
  info->journal.segment = next;
  info->journal.room = 0;
  lua_pop(L, 2);
}

void lk_journal_reserve(lua_State *L) {
  lk_info *info = lk_info_of(L);
  if (lua_gettop(info->journal.current) >= LK_SEGMENT_SLOTS) lk_next_segment(L);
  lua_State *segment = info->journal.current;
  int top = lua_gettop(segment);
  // Room doubles as the segment grows (as a table's array would), up to the segment's size.
  int want = top < 48 ? 48 : top;
  if (want > LK_SEGMENT_SLOTS - top) want = LK_SEGMENT_SLOTS - top;
  // One slot more than is written to: a reader pushes a copy of an entry's value there.
  if (!lua_checkstack(segment, want + 1)) {
    // Out of memory, or out of what the cap leaves: asked for as Lua would ask, so the error
    // is the memory error or the memory limit's, before anything was written.
    lua_newuserdatauv(L, (size_t)(top + want + 1) * 2 * 16, 0);
    lua_pop(L, 1);
    if (!lua_checkstack(segment, want + 1)) luaL_error(L, "not enough memory to journal a write");
  }
  info->journal.room = want;
}

void lk_journal_drop(lua_State *L) {
  lk_info *info = lk_info_of(L);
  if (lua_gettop(info->journal.current) == 0) {  // the newest entry is in the segment before
    lua_State *previous = lk_segment(L, info->journal.segment - 1);
    info->journal.current = previous;
    info->journal.segment -= 1;
    info->journal.room = 0;
  }
  lua_settop(info->journal.current, -4);
  info->journal.room += 3;  // slots that held an entry can hold one again
  info->journal.length -= 1;
}

void lk_journal_push_field(lua_State *L, lua_Integer entry, int field) {
  lua_State *segment = lk_segment(L, entry / LK_SEGMENT_ENTRIES);
  lua_pushvalue(segment, (int)(entry % LK_SEGMENT_ENTRIES) * 3 + field);
  lua_xmove(segment, L, 1);
}

// The segments emptied after a large action, when no new one could be made.
static void lk_empty_segments(lua_State *L) {
  lk_info *info = lk_info_of(L);
  for (lua_Integer index = info->journal.segment; index >= 0; index--) {
    lua_settop(lk_segment(L, index), 0);
  }
  info->journal.current = lk_segment(L, 0);
  info->journal.segment = 0;
  info->journal.room = 0;
}

void lk_journal_forget_large(lua_State *L) {
  lua_pushcfunction(L, lk_new_segments_protected);
  if (lk_pcall_uncapped(L, 0, 0) == LUA_OK) return;
  lua_pop(L, 1);
  lk_empty_segments(L);
}
