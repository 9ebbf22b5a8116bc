// A table error object described as data, for an error's report: `error({ code = 404 })` was
// reported as `(error object is a table value)`, as `lua5.4` says it, so that two such errors
// read the same everywhere a host shows or compares them (a REPL's replay said an action's
// error was unchanged when its code was not). Raw reads only: no feature code runs while a
// report is built (the report's memory cap is off, which the bounds below make harmless).
#include "LuaState.h"

#include "KeyOrder.h"
#include "TableDescription.h"

#include <math.h>
#include <string.h>

enum {
  LK_DESCRIPTION_MAX = 400,  // bytes, then `…`
  LK_DESCRIPTION_FIELDS = 16,  // a table's fields shown, then `…`
  LK_DESCRIPTION_DEPTH = 3,  // levels shown, then `{…}`
  LK_DESCRIPTION_STRING = 60,  // a string's bytes shown, then `…`
  LK_DESCRIPTION_SCAN = 10000  // fields looked at for the first ones in order
};

// The description as it is made, in a fixed buffer: no Lua buffer, whose stack slots the keys
// pushed on the way would unbalance.
typedef struct {
  char text[LK_DESCRIPTION_MAX + 8];  // room for the `…` of the cut
  size_t length;
  int cut;
} lk_description;

static void lk_describe_text(lk_description *d, const char *text, size_t length) {
  if (d->cut) return;
  size_t room = LK_DESCRIPTION_MAX - d->length;
  if (length > room) {
    memcpy(d->text + d->length, text, room);
    memcpy(d->text + LK_DESCRIPTION_MAX, "…", 3);
    d->length = LK_DESCRIPTION_MAX + 3;
    d->cut = 1;
    return;
  }
  memcpy(d->text + d->length, text, length);
  d->length += length;
}

static void lk_describe_literal(lk_description *d, const char *text) {
  lk_describe_text(d, text, strlen(text));
}

static int lk_is_lua_name(const char *s, size_t length) {
  static const char *const reserved[] = {
    "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
    "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while", NULL};
  if (length == 0 || (s[0] >= '0' && s[0] <= '9')) return 0;
  for (size_t i = 0; i < length; i++) {
    char c = s[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
      return 0;
  }
  for (int i = 0; reserved[i] != NULL; i++) {
    if (strlen(reserved[i]) == length && memcmp(reserved[i], s, length) == 0) return 0;
  }
  return 1;
}

static void lk_describe_string(lk_description *d, const char *s, size_t length) {
  char piece[8];
  lk_describe_literal(d, "\"");
  size_t shown = length < LK_DESCRIPTION_STRING ? length : LK_DESCRIPTION_STRING;
  for (size_t i = 0; i < shown && !d->cut; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') {
      piece[0] = '\\';
      piece[1] = (char)c;
      lk_describe_text(d, piece, 2);
    } else if (c == '\n') {
      lk_describe_literal(d, "\\n");
    } else if (c == '\r') {
      lk_describe_literal(d, "\\r");
    } else if (c == '\t') {
      lk_describe_literal(d, "\\t");
    } else if (c < 32 || c == 127) {
      snprintf(piece, sizeof piece, "\\%u", (unsigned)c);
      lk_describe_literal(d, piece);
    } else {
      piece[0] = (char)c;
      lk_describe_text(d, piece, 1);
    }
  }
  if (shown < length) lk_describe_literal(d, "…");
  lk_describe_literal(d, "\"");
}

static void lk_describe_value(lua_State *L, lk_description *d, int index, int depth);

// Pushes a list (a table) of the first LK_DESCRIPTION_FIELDS keys of the table at `table` in
// key order, among the first LK_DESCRIPTION_SCAN; returns how many fields the table has (or
// LK_DESCRIPTION_SCAN + 1 past it) and sets `*sequence` to whether its keys are 1 to n.
// A table past the scan is shown by its first keys in the order of those scanned.
static lua_Integer lk_push_first_keys(lua_State *L, int table, int *sequence) {
  lua_createtable(L, LK_DESCRIPTION_FIELDS, 0);
  int keys = lua_gettop(L);
  lua_Integer count = 0, kept = 0, length = (lua_Integer)lua_rawlen(L, table), in_range = 0;
  lua_pushnil(L);
  while (lk_next_visible(L, table) != 0) {
    lua_pop(L, 1);
    if (++count > LK_DESCRIPTION_SCAN) {
      lua_pop(L, 1);
      break;
    }
    if (lua_isinteger(L, -1)) {
      lua_Integer k = lua_tointeger(L, -1);
      in_range += k >= 1 && k <= length;
    }
    // Insertion into the kept keys, in order: shift the later ones up one.
    lua_Integer at = kept;
    while (at > 0) {
      lua_rawgeti(L, keys, at);
      int before = lk_key_before(L, lua_gettop(L) - 1, lua_gettop(L));
      lua_pop(L, 1);
      if (!before) break;
      at -= 1;
    }
    if (at >= LK_DESCRIPTION_FIELDS) continue;
    for (lua_Integer i = (kept < LK_DESCRIPTION_FIELDS ? kept : LK_DESCRIPTION_FIELDS - 1); i > at;
         i--) {
      lua_rawgeti(L, keys, i);
      lua_rawseti(L, keys, i + 1);
    }
    lua_pushvalue(L, -1);
    lua_rawseti(L, keys, at + 1);
    if (kept < LK_DESCRIPTION_FIELDS) kept += 1;
  }
  // Past the scan, a list whose scanned keys were all its indices reads as a list.
  *sequence = count > LK_DESCRIPTION_SCAN
                ? in_range == LK_DESCRIPTION_SCAN && length > LK_DESCRIPTION_SCAN
                : count > 0 && count == length && in_range == length;
  return count;
}

static void lk_describe_table(lua_State *L, lk_description *d, int table, int depth) {
  if (lk_push_real_of(L, table)) table = lua_gettop(L);  // a state table: what it holds
  if (depth >= LK_DESCRIPTION_DEPTH) {
    lk_describe_literal(d, "{…}");
    return;
  }
  int sequence = 0;
  lua_Integer count = lk_push_first_keys(L, table, &sequence);
  int keys = lua_gettop(L);
  if (count == 0) {
    lk_describe_literal(d, "{}");
    return;
  }
  lk_describe_literal(d, "{ ");
  lua_Integer shown = count < LK_DESCRIPTION_FIELDS ? count : LK_DESCRIPTION_FIELDS;
  for (lua_Integer i = 1; i <= shown && !d->cut; i++) {
    if (i > 1) lk_describe_literal(d, ", ");
    lua_rawgeti(L, keys, i);
    int key = lua_gettop(L);
    if (!sequence) {
      size_t length = 0;
      const char *name = lua_type(L, key) == LUA_TSTRING ? lua_tolstring(L, key, &length) : NULL;
      if (name != NULL && lk_is_lua_name(name, length)) {
        lk_describe_text(d, name, length);
      } else {
        lk_describe_literal(d, "[");
        lk_describe_value(L, d, key, depth + 1);
        lk_describe_literal(d, "]");
      }
      lk_describe_literal(d, " = ");
    }
    lua_pushvalue(L, key);
    lua_rawget(L, table);
    lk_describe_value(L, d, lua_gettop(L), depth + 1);
    lua_pop(L, 2);
  }
  if (count > shown) lk_describe_literal(d, ", …");
  lk_describe_literal(d, " }");
}

static void lk_describe_value(lua_State *L, lk_description *d, int index, int depth) {
  luaL_checkstack(L, 8, "a table error object nested too deeply");
  int top = lua_gettop(L);
  switch (lua_type(L, index)) {
    case LUA_TSTRING: {
      size_t length = 0;
      const char *s = lua_tolstring(L, index, &length);
      lk_describe_string(d, s, length);
      break;
    }
    case LUA_TNUMBER:
      if (!lua_isinteger(L, index)) {
        lua_Number x = lua_tonumber(L, index);
        if (isnan(x)) {
          // As a saved file writes it: `0/0` is Lua's own NaN here, `-(0/0)` the other sign.
          int lua_sign = signbit(lk_zero_over_zero()) != 0;
          lk_describe_literal(d, (signbit(x) != 0) == lua_sign ? "0/0" : "-(0/0)");
          break;
        }
        if (isinf(x)) {
          lk_describe_literal(d, x < 0 ? "-math.huge" : "math.huge");
          break;
        }
      }
      lua_pushvalue(L, index);
      {
        size_t length = 0;
        const char *s = lua_tolstring(L, -1, &length);  // on a copy: the key stays a number
        lk_describe_text(d, s, length);
      }
      break;
    case LUA_TBOOLEAN: lk_describe_literal(d, lua_toboolean(L, index) ? "true" : "false"); break;
    case LUA_TNIL: lk_describe_literal(d, "nil"); break;
    case LUA_TTABLE: lk_describe_table(L, d, index, depth); break;
    default:
      lk_describe_literal(d, "<");
      lk_describe_literal(d, luaL_typename(L, index));
      lk_describe_literal(d, ">");
      break;
  }
  lua_settop(L, top);
}

void lk_push_table_description(lua_State *L, int index) {
  index = lua_absindex(L, index);
  lk_description d;
  d.length = 0;
  d.cut = 0;
  lk_describe_value(L, &d, index, 0);
  lua_pushlstring(L, d.text, d.length);
}
