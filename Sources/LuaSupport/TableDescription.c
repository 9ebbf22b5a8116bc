// A table error object described as data, for an error's report: `error({ code = 404 })` was
// reported as `(error object is a table value)`, as `lua5.4` says it, so that two such errors
// read the same everywhere a host shows or compares them (a REPL's replay said an action's
// error was unchanged when its code was not). Raw reads only: no feature code runs while a
// report is built (the report's memory cap is off, which the bounds below make harmless).
#include "LuaState.h"

#include "KeyOrder.h"
#include "TableDescription.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  LK_DESCRIPTION_MAX = 400,  // bytes, then `…`
  LK_DESCRIPTION_FIELDS = 16,  // a table's fields shown, then `…`
  LK_DESCRIPTION_DEPTH = 3,  // levels shown, then `{…}`
  LK_DESCRIPTION_STRING = 60  // a string's bytes shown, then `…`
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

// The length of the UTF-8 sequence starting at s[i] (of `length` bytes), 0 if it is none.
static size_t lk_utf8_sequence(const unsigned char *s, size_t i, size_t length) {
  unsigned char c = s[i];
  size_t n;
  unsigned char low = 0x80, high = 0xBF;  // the second byte's range
  if (c >= 0xC2 && c <= 0xDF) n = 2;
  else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) low = 0xA0;
    if (c == 0xED) high = 0x9F;  // no surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) low = 0x90;
    if (c == 0xF4) high = 0x8F;
  } else return 0;
  if (i + n > length || s[i + 1] < low || s[i + 1] > high) return 0;
  for (size_t k = 2; k < n; k++) {
    if (s[i + k] < 0x80 || s[i + k] > 0xBF) return 0;
  }
  return n;
}

static void lk_describe_string(lk_description *d, const char *text, size_t length) {
  const unsigned char *s = (const unsigned char *)text;
  char piece[8];
  lk_describe_literal(d, "\"");
  size_t i = 0;
  for (; i < length && i < LK_DESCRIPTION_STRING && !d->cut; i++) {
    unsigned char c = s[i];
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
    } else if (c >= 0x80 && lk_utf8_sequence(s, i, length) > 0) {
      size_t n = lk_utf8_sequence(s, i, length);
      if (i + n > LK_DESCRIPTION_STRING) break;  // not cut inside a character
      lk_describe_text(d, text + i, n);
      i += n - 1;
    } else if (c < 32 || c >= 127) {
      // Three digits, as a saved file writes them (`\0` before a digit reads as another byte);
      // a byte that is no UTF-8 too, which a terminal would show as U+FFFD whatever it was.
      snprintf(piece, sizeof piece, "\\%03u", (unsigned)c);
      lk_describe_literal(d, piece);
    } else {
      piece[0] = (char)c;
      lk_describe_text(d, piece, 1);
    }
  }
  if (i < length) lk_describe_literal(d, "…");
  lk_describe_literal(d, "\"");
}

// A float as it reads back: the fewest digits that give the same number, `.0` on an integral
// one (1.0 is not 1 in a state), NaN and infinities as a saved file writes them.
static void lk_describe_float(lk_description *d, lua_Number x) {
  if (isnan(x)) {
    // `0/0` is Lua's own NaN here, `-(0/0)` the other sign.
    int lua_sign = signbit(lk_zero_over_zero()) != 0;
    lk_describe_literal(d, (signbit(x) != 0) == lua_sign ? "0/0" : "-(0/0)");
    return;
  }
  if (isinf(x)) {
    lk_describe_literal(d, x < 0 ? "-math.huge" : "math.huge");
    return;
  }
  char text[40];
  for (int digits = 15; digits <= 17; digits++) {
    snprintf(text, sizeof text, "%.*g", digits, x);
    if (strtod(text, NULL) == x) break;
  }
  if (strspn(text, "-0123456789") == strlen(text)) strcat(text, ".0");
  lk_describe_literal(d, text);
}

static void lk_describe_value(lua_State *L, lk_description *d, int index, int depth);

// Pushes a list (a table) of the first LK_DESCRIPTION_FIELDS keys of the table at `table` in
// key order, among its keys that are data (numbers, strings, booleans: a table, a function or a
// coroutine as a key has no place in an order that holds in every run, and is counted instead,
// in `*others`); returns how many data keys it has and sets `*sequence` to whether its keys are
// 1 to n. Every key is looked at (a first few of a larger table's, in hash order, were other
// ones each run): time as the table's size, 16 comparisons a key at most.
static lua_Integer lk_push_first_keys(
    lua_State *L, int table, int *sequence, lua_Integer *others) {
  lua_createtable(L, LK_DESCRIPTION_FIELDS, 0);
  int keys = lua_gettop(L);
  lua_Integer count = 0, kept = 0, length = (lua_Integer)lua_rawlen(L, table), in_range = 0;
  *others = 0;
  lua_pushnil(L);
  while (lk_next_visible(L, table) != 0) {
    lua_pop(L, 1);
    int key_type = lua_type(L, -1);
    if (key_type != LUA_TNUMBER && key_type != LUA_TSTRING && key_type != LUA_TBOOLEAN) {
      *others += 1;
      continue;
    }
    count += 1;
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
  *sequence = *others == 0 && count > 0 && count == length && in_range == length;
  return count;
}

static void lk_describe_table(lua_State *L, lk_description *d, int table, int depth) {
  if (lk_push_real_of(L, table)) table = lua_gettop(L);  // a state table: what it holds
  if (depth >= LK_DESCRIPTION_DEPTH) {
    lk_describe_literal(d, "{…}");
    return;
  }
  int sequence = 0;
  lua_Integer others = 0;
  lua_Integer count = lk_push_first_keys(L, table, &sequence, &others);
  int keys = lua_gettop(L);
  if (count == 0 && others == 0) {
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
  if (others > 0) {
    char note[80];
    snprintf(note, sizeof note, "%s<%lld key%s not data>", count > 0 ? ", " : "",
             (long long)others, others == 1 ? "" : "s");
    lk_describe_literal(d, note);
  }
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
        lk_describe_float(d, lua_tonumber(L, index));
      } else if (lua_tointeger(L, index) == LUA_MININTEGER) {
        lk_describe_literal(d, "math.mininteger");  // its digits read back as a float
      } else {
        char text[24];
        snprintf(text, sizeof text, "%lld", (long long)lua_tointeger(L, index));
        lk_describe_literal(d, text);
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

// describe(table): lk_push_table_description for Lua, in the registry (the test runner's
// trusted chunk says a test's table error as a reducer's report says it).
static int lk_describe_table_function(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lk_push_table_description(L, 1);
  return 1;
}

void lk_table_description_open(lua_State *L) {
  lua_pushcfunction(L, lk_describe_table_function);
  lua_setfield(L, LUA_REGISTRYINDEX, LK_DESCRIBE_TABLE_NAME);
}
