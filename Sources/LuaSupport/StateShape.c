// The shape a state may have: at most LK_STATE_MAX_DEPTH levels of tables, and no table inside
// itself. A snapshot, a saved file and a session hold no more, so a state that went past
// either could never be saved again. A write cannot see where its table lands (a table does
// not know its parents, and one table may sit under two), so the question is answered for the
// whole action, before it commits: an action that leaves the state out of shape fails and is
// rolled back, naming the place.
//
// The walk that answers it exactly costs what the state holds, so most writes prove they are
// harmless as they happen, from what they have at hand (lk_shape_note_store), and the walk
// runs only after a write that could not (lk_transaction_check_shape):
// - a table holding no table, stored in a table that holds a table already (at the slot it
//   replaces, or the one before): it lands no deeper than a table already is, and it cannot
//   contain its new parent. Moving the elements of a list of records (a sort, an insert, a
//   remove) is this case;
// - a new table with no state table inside it, or a state table holding none, of height h: the
//   state's height becomes at most its bound plus h, or 1 + h at the root. The bound is exact
//   after each walk.
// A state table stored anywhere else (shared state, a list of records moved whole) may close a
// cycle: the walk runs.
#include "LuaState.h"

#include "KeyOrder.h"

// A flat table of more entries than this is recorded as walked, as other tables are: a table
// reached from many places is then scanned once, not once a place.
enum { LK_SHAPE_SCAN_SMALL = 16 };
// How many of a long path's keys a message shows, from the root, and then from the end.
enum { LK_SHAPE_PATH_HEAD = 6, LK_SHAPE_PATH_TAIL = 2 };

void lk_shape_forget(lua_State *L) {
  lk_info *info = lk_info_of(L);
  info->shape.bound = 0;
  info->shape.dirty = 0;
}

const int *lk_transaction_shape_flag(lua_State *L) { return &lk_info_of(L)->shape.dirty; }

void lk_shape_rolled_back(lua_State *L) {
  lk_info *info = lk_info_of(L);
  info->shape.bound = info->shape.bound_at_begin;
  info->shape.dirty = 0;
}

// Whether the real table at `real` holds a table at `key` (its value now, before the write) or,
// for an integer key, at the one before.
static int lk_shape_holds_table_near(lua_State *L, int real, int key) {
  lua_pushvalue(L, key);
  int held = lua_rawget(L, real) == LUA_TTABLE;
  lua_pop(L, 1);
  if (held || !lua_isinteger(L, key)) return held;
  lua_Integer index = lua_tointeger(L, key);
  if (index <= 1) return 0;
  held = lua_rawgeti(L, real, index - 1) == LUA_TTABLE;
  lua_pop(L, 1);
  return held;
}

// Whether the real table at `table` holds no table, looking at LK_SHAPE_SCAN_SMALL entries at
// most (a larger one counts as holding one).
static int lk_shape_is_small_flat(lua_State *L, int table) {
  return lk_is_flat_within(L, table, LK_SHAPE_SCAN_SMALL);
}

void lk_shape_note_store(
    lua_State *L, int proxy, int real, int key, int value, int existing, int height) {
  lk_info *info = lk_info_of(L);
  if (info->shape.dirty) return;
  if (!existing && height < 0) {  // a new table holding a state table: it may close a cycle
    info->shape.dirty = 1;
    return;
  }
  lua_rawgeti(L, LUA_REGISTRYINDEX, info->shape.root_slot);
  int is_root = lua_rawequal(L, -1, proxy);
  lua_pop(L, 1);
  if (existing) {
    // A state table: harmless only when it holds no table, and is not its own new parent.
    if (lua_rawequal(L, real, value) || !lk_shape_is_small_flat(L, value)) {
      info->shape.dirty = 1;
      return;
    }
    height = 1;
  }
  lua_Integer bound = info->shape.bound;
  if (is_root) {
    // At the root it lands at level 2: the state is at most 1 + height deep there. (Not
    // "beside a table": the root may hold none, so its height may grow from 1 to 2.)
    if (1 + height <= LK_STATE_MAX_DEPTH) {
      if (bound != 0 && 1 + height > bound) info->shape.bound = 1 + height;
      return;
    }
    info->shape.dirty = 1;
    return;
  }
  // Beside a table of its new parent, a table holding none lands no deeper than that one is.
  int beside_table = lk_shape_holds_table_near(L, real, key);
  if (height == 1 && beside_table) return;
  if (bound != 0) {
    lua_Integer reach = beside_table ? bound - 1 + height : bound + height;
    if (reach > bound) info->shape.bound = reach;
    if (reach <= LK_STATE_MAX_DEPTH) return;
  }
  info->shape.dirty = 1;
}

// MARK: - The walk

// The walk computes each table's height (1: it holds no table) once, however many places
// reach it, so it costs what the state holds: a table met again is not walked again, and a
// place is too deep when its depth plus the height of the table there passes the limit.
typedef struct {
  int reached;                          // stack slot: real table -> height (< 0: on the path,
                                        // at that depth)
  int keys[LK_STATE_MAX_DEPTH + 2];     // stack slots of the keys from the root, by depth
  int length;                           // on a refusal: the keys of the place refused
  int inside;                           // on a cycle: the depth of the table it is inside
  int sorted;                           // each table's fields walked in key order
} lk_shape_walk;

enum { LK_SHAPE_OK = 0, LK_SHAPE_TOO_DEEP = 1, LK_SHAPE_CYCLE = 2 };

// Adds the path of the first `count` keys to the buffer, long paths shortened.
static void lk_shape_add_path(lua_State *L, luaL_Buffer *buffer, lk_shape_walk *walk, int count) {
  luaL_addstring(buffer, "state");
  for (int i = 1; i <= count; i++) {
    if (count > LK_SHAPE_PATH_HEAD + LK_SHAPE_PATH_TAIL && i == LK_SHAPE_PATH_HEAD + 1) {
      lua_pushfstring(L, "…(%d more)…", count - LK_SHAPE_PATH_HEAD - LK_SHAPE_PATH_TAIL);
      luaL_addvalue(buffer);
      i = count - LK_SHAPE_PATH_TAIL;
      continue;
    }
    int key = walk->keys[i];
    if (lua_type(L, key) == LUA_TSTRING) {
      size_t length;
      const char *name = lua_tolstring(L, key, &length);
      int plain = length > 0 && length <= 40 && !(name[0] >= '0' && name[0] <= '9');
      for (size_t c = 0; plain && c < length; c++) {
        char ch = name[c];
        plain = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' ||
                (ch >= '0' && ch <= '9');
      }
      if (plain) lua_pushfstring(L, ".%s", name);
      else lua_pushliteral(L, "[\"…\"]");
    } else if (lua_isinteger(L, key)) {
      lua_pushfstring(L, "[%I]", (LUAI_UACINT)lua_tointeger(L, key));
    } else if (lua_type(L, key) == LUA_TNUMBER) {
      lua_pushfstring(L, "[%f]", lua_tonumber(L, key));
    } else {
      lua_pushstring(L, lua_toboolean(L, key) ? "[true]" : "[false]");
    }
    luaL_addvalue(buffer);
  }
}

// The height of a table the walk has met whole: recorded, or 1 for a small flat one it did not
// record. Pushes nothing.
static lua_Integer lk_shape_known_height(lua_State *L, int table, lk_shape_walk *walk) {
  lua_pushvalue(L, table);
  lua_Integer height = lua_rawget(L, walk->reached) == LUA_TNUMBER ? lua_tointeger(L, -1) : 1;
  lua_pop(L, 1);
  return height;
}

// A refusal names a place: walked in the order of a hash part, which follows the process's
// string-hash seed, a state with a table at two places named either place from one run to the
// next (and `composable replay` said an action's error was another now). The walk that names
// it goes through each table's fields in key order (lk_push_sorted_keys).

// From the table at `table`, met at `depth` and `height` levels high, down its highest branch
// to the first level past the limit: the keys of that place, for the message.
static int lk_shape_descend(
    lua_State *L, int table, int depth, lua_Integer height, lk_shape_walk *walk) {
  while (depth <= LK_STATE_MAX_DEPTH && height > 1) {
    luaL_checkstack(L, 4, "the state is nested too deeply");
    int found = 0;
    if (walk->sorted) {
      lua_Integer count = lk_push_sorted_keys(L, table, 1);
      int list = lua_gettop(L);
      for (lua_Integer i = 1; i <= count && !found; i++) {
        lua_rawgeti(L, list, i);
        lua_pushvalue(L, -1);
        lua_rawget(L, table);
        if (lk_shape_known_height(L, lua_gettop(L), walk) == height - 1) found = 1;
        else lua_pop(L, 2);
      }
      if (!found) lua_pop(L, 1);
    } else {
      lua_pushnil(L);
      while (lk_next_visible(L, table) != 0) {
        if (lua_type(L, -1) == LUA_TTABLE &&
            lk_shape_known_height(L, lua_gettop(L), walk) == height - 1) {
          found = 1;
          break;  // the key and the table stay on the stack, for the path
        }
        lua_pop(L, 1);
      }
    }
    if (!found) break;
    walk->keys[depth] = lua_gettop(L) - 1;
    table = lua_gettop(L);
    depth += 1;
    height -= 1;
  }
  walk->length = depth - 1;
  return LK_SHAPE_TOO_DEEP;
}

// The height of the real table at `table`, met at `depth` (the root is 1) under the keys in
// `walk`; or -1 with `*result` the refusal, the keys on the stack naming the place.
static lua_Integer lk_shape_height(
    lua_State *L, int table, int depth, lk_shape_walk *walk, int *result) {
  if (depth > LK_STATE_MAX_DEPTH) {
    walk->length = depth - 1;
    *result = LK_SHAPE_TOO_DEEP;
    return -1;
  }
  luaL_checkstack(L, 6, "the state is nested too deeply");
  lua_pushvalue(L, table);
  if (lua_rawget(L, walk->reached) == LUA_TNUMBER) {
    lua_Integer known = lua_tointeger(L, -1);
    lua_pop(L, 1);
    if (known < 0) {
      walk->length = depth - 1;
      walk->inside = (int)-known;
      *result = LK_SHAPE_CYCLE;
      return -1;
    }
    if (depth + known - 1 > LK_STATE_MAX_DEPTH) {
      *result = lk_shape_descend(L, table, depth, known, walk);
      return -1;
    }
    return known;
  }
  lua_pop(L, 1);
  if (lk_shape_is_small_flat(L, table)) return 1;
  lua_pushvalue(L, table);
  lua_pushinteger(L, -depth);
  lua_rawset(L, walk->reached);
  lua_Integer height = 1;
  if (walk->sorted) {
    lua_Integer count = lk_push_sorted_keys(L, table, 1);
    int list = lua_gettop(L);
    for (lua_Integer i = 1; i <= count; i++) {
      lua_rawgeti(L, list, i);
      lua_pushvalue(L, -1);
      lua_rawget(L, table);
      walk->keys[depth] = lua_gettop(L) - 1;
      lua_Integer inner = lk_shape_height(L, lua_gettop(L), depth + 1, walk, result);
      if (inner < 0) return -1;  // the keys on the stack name the path
      if (inner + 1 > height) height = inner + 1;
      lua_pop(L, 2);
    }
    lua_pop(L, 1);
  } else {
    lua_pushnil(L);
    while (lk_next_visible(L, table) != 0) {
      if (lua_type(L, -1) == LUA_TTABLE) {
        walk->keys[depth] = lua_gettop(L) - 1;
        lua_Integer inner = lk_shape_height(L, lua_gettop(L), depth + 1, walk, result);
        if (inner < 0) return -1;  // the keys on the stack name the path
        if (inner + 1 > height) height = inner + 1;
      }
      lua_pop(L, 1);
    }
  }
  lua_pushvalue(L, table);
  lua_pushinteger(L, height);
  lua_rawset(L, walk->reached);
  return height;
}

// The body of lk_shape_check, protected: 1 the root (a real table).
static int lk_shape_check_protected(lua_State *L) {
  lk_shape_walk walk = {0};
  lua_newtable(L);
  walk.reached = lua_gettop(L);
  int result = LK_SHAPE_OK;
  lua_Integer height = lk_shape_height(L, 1, 1, &walk, &result);
  if (height > 0) {
    lk_info_of(L)->shape.bound = height;
    return 0;
  }
  // Refused: walked again in key order, so that the place named is the same in every run (the
  // refusal costs a sort of each table's keys; a state in shape never pays it).
  lua_settop(L, 1);
  walk = (lk_shape_walk){0};
  walk.sorted = 1;
  lua_newtable(L);
  walk.reached = lua_gettop(L);
  result = LK_SHAPE_OK;
  height = lk_shape_height(L, 1, 1, &walk, &result);
  if (height > 0) return luaL_error(L, "the state's shape was refused, then found in shape");
  // The keys of the path are on the stack, from the root down.
  int length = walk.length;
  luaL_Buffer buffer;
  luaL_buffinit(L, &buffer);
  if (result == LK_SHAPE_TOO_DEEP) {
    luaL_addstring(&buffer, "the state would be nested more than ");
    lua_pushinteger(L, LK_STATE_MAX_DEPTH);
    luaL_addvalue(&buffer);
    luaL_addstring(&buffer, " levels deep, at ");
    lk_shape_add_path(L, &buffer, &walk, length);
    luaL_addstring(&buffer, ". A state is data a file can hold, at most ");
    lua_pushinteger(L, LK_STATE_MAX_DEPTH);
    luaL_addvalue(&buffer);
    luaL_addstring(&buffer, " levels deep. To fix, keep it flatter: hold ids and look them up");
  } else {
    luaL_addstring(&buffer, "the state would hold a table inside itself: ");
    lk_shape_add_path(L, &buffer, &walk, length);
    luaL_addstring(&buffer, " is ");
    lk_shape_add_path(L, &buffer, &walk, walk.inside - 1);
    luaL_addstring(&buffer, ", a table it is inside. A state is data a file can hold, which has "
                            "no cycles. To fix, hold an id and look it up, or a copy");
  }
  luaL_pushresult(&buffer);
  return lua_error(L);
}

int lk_transaction_check_shape(lua_State *L, int state) {
  lk_info *info = lk_info_of(L);
  if (!info->shape.dirty) return LUA_OK;
  state = lua_absindex(L, state);
  lua_pushcfunction(L, lk_shape_check_protected);
  if (!lk_push_proxied_table(L, state)) {
    lua_pop(L, 1);
    return LUA_OK;
  }
  int status = lk_pcall_uncapped(L, 1, 0);
  if (status == LUA_OK) info->shape.dirty = 0;
  return status;
}
