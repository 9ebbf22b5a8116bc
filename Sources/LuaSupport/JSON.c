// JSON for feature code: `composable.json`'s encode, decode, array and null, working on the Lua
// stack directly (no value in between), charged to the call's instruction budget as they go,
// and allocating only through Lua, so the memory limit holds.
//
// The rules are the marshalling's: a table with the array marker, or whose keys are exactly
// 1..n, is a JSON array; one with string keys an object (written with its keys sorted, so the
// same table always gives the same text); an empty table `{}` unless it has the marker.
// Integers stay integers and floats floats (`1` reads as 1, `1.0` as 1.0). JSON's null is
// `json.null`, a light userdata, as in lua-cjson. Errors say where: the path of the value that
// cannot be written, or the line and column of the text that cannot be read.
#include "LuaState.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  LK_JSON_MAX_DEPTH = 200,
  LK_JSON_BYTES_PER_INSTRUCTION = 16,
  LK_JSON_SMALL_OBJECT = 32,  // objects up to this many fields are sorted on the stack
};

// MARK: - UTF-8

// The length of the well-formed UTF-8 sequence at `s` (at most `n` bytes), or 0.
static size_t lk_utf8_sequence(const unsigned char *s, size_t n) {
  unsigned char c = s[0];
  if (c < 0x80) return 1;
  size_t length;
  unsigned char low = 0x80, high = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    length = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    length = 3;
    if (c == 0xE0) low = 0xA0;   // overlong
    if (c == 0xED) high = 0x9F;  // surrogate
  } else if (c >= 0xF0 && c <= 0xF4) {
    length = 4;
    if (c == 0xF0) low = 0x90;   // overlong
    if (c == 0xF4) high = 0x8F;  // past U+10FFFF
  } else {
    return 0;
  }
  if (n < length || s[1] < low || s[1] > high) return 0;
  for (size_t i = 2; i < length; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0;
  }
  return length;
}

// MARK: - Encoding

typedef struct {
  lua_State *L;
  int slot;  // the stack slot of the userdata that holds the text
  char *data;
  size_t length, capacity;
  int depth;
  // Where the value being written is: at each level, an array index or the stack slot of a key.
  lua_Integer index[LK_JSON_MAX_DEPTH + 1];
  int key_slot[LK_JSON_MAX_DEPTH + 1];
} lk_json_writer;

// Raises `message` about the value being written, after its path (`todos[2].title`).
static int lk_json_encode_error(lk_json_writer *w, const char *message) {
  lua_State *L = w->L;
  luaL_where(L, 1);  // the caller's line, as Lua's own errors have it
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  luaL_addstring(&b, "json.encode: ");
  for (int level = 1; level <= w->depth; level++) {
    // A path through a cycle is long: its start and its end say enough.
    if (w->depth > 12 && level > 6 && level <= w->depth - 3) {
      if (level == 7) luaL_addstring(&b, "..");
      continue;
    }
    if (w->key_slot[level]) {
      size_t length;
      const char *key = lua_tolstring(L, w->key_slot[level], &length);
      if (level > 1) luaL_addchar(&b, '.');
      luaL_addlstring(&b, key, length);
    } else {
      char text[32];
      snprintf(text, sizeof text, "[%lld]", (long long)w->index[level]);
      luaL_addstring(&b, text);
    }
  }
  if (w->depth > 0) luaL_addstring(&b, ": ");
  luaL_addstring(&b, message);
  luaL_pushresult(&b);
  lua_concat(L, 2);
  return lua_error(L);
}

static void lk_json_reserve(lk_json_writer *w, size_t extra) {
  if (w->length + extra <= w->capacity) return;
  size_t capacity = w->capacity * 2;
  while (capacity < w->length + extra) capacity *= 2;
  lk_charge(w->L, (lua_Integer)(capacity / LK_JSON_BYTES_PER_INSTRUCTION));
  char *bigger = lua_newuserdatauv(w->L, capacity, 0);
  memcpy(bigger, w->data, w->length);
  lua_replace(w->L, w->slot);
  w->data = bigger;
  w->capacity = capacity;
}

static void lk_json_add(lk_json_writer *w, const char *bytes, size_t length) {
  lk_json_reserve(w, length);
  memcpy(w->data + w->length, bytes, length);
  w->length += length;
}

static void lk_json_add_string(lk_json_writer *w, const char *s, size_t length) {
  static const char hex[] = "0123456789abcdef";
  lk_json_reserve(w, length + 2);
  w->data[w->length++] = '"';
  size_t i = 0;
  while (i < length) {
    // A run of characters written as they are, copied in one piece.
    size_t run = i;
    while (run < length) {
      unsigned char plain = (unsigned char)s[run];
      if (plain < 0x20 || plain >= 0x7F || plain == '"' || plain == '\\') break;
      run++;
    }
    if (run > i) {
      lk_json_add(w, s + i, run - i);
      i = run;
      continue;
    }
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x80) {
      size_t sequence = lk_utf8_sequence((const unsigned char *)s + i, length - i);
      if (sequence == 0) {
        lk_json_encode_error(w, "the string is not UTF-8 text (JSON holds only text)");
      }
      lk_json_add(w, s + i, sequence);
      i += sequence;
      continue;
    }
    if (c == '"' || c == '\\') {
      char escaped[2] = {'\\', (char)c};
      lk_json_add(w, escaped, 2);
    } else if (c == '\n') {
      lk_json_add(w, "\\n", 2);
    } else if (c == '\r') {
      lk_json_add(w, "\\r", 2);
    } else if (c == '\t') {
      lk_json_add(w, "\\t", 2);
    } else if (c < 0x20 || c == 0x7F) {
      char escaped[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
      lk_json_add(w, escaped, 6);
    }
    i++;
  }
  lk_json_reserve(w, 1);
  w->data[w->length++] = '"';
}

static void lk_json_add_number(lk_json_writer *w, int index) {
  char text[64];
  int length;
  if (lua_isinteger(w->L, index)) {
    // Digits written backwards from the end of `text`: snprintf costs more than the rest of
    // writing a small integer.
    lua_Integer integer = lua_tointeger(w->L, index);
    unsigned long long magnitude =
        integer < 0 ? 0ULL - (unsigned long long)integer : (unsigned long long)integer;
    char *end = text + sizeof text, *p = end;
    do {
      *--p = (char)('0' + magnitude % 10);
      magnitude /= 10;
    } while (magnitude > 0);
    if (integer < 0) *--p = '-';
    lk_json_add(w, p, (size_t)(end - p));
    return;
  } else {
    double number = lua_tonumber(w->L, index);
    if (!isfinite(number)) {
      lk_json_encode_error(w, isnan(number) ? "NaN has no JSON form"
                                            : "an infinite number has no JSON form");
    }
    // The shortest of 15 or 17 digits that reads back as the same double, always with a
    // point or an exponent so that it reads back as a float.
    length = snprintf(text, sizeof text, "%.15g", number);
    if (strtod(text, NULL) != number) length = snprintf(text, sizeof text, "%.17g", number);
    if (!strpbrk(text, ".eE")) length += snprintf(text + length, sizeof text - length, ".0");
  }
  lk_json_add(w, text, (size_t)length);
}

static void lk_json_encode_value(lk_json_writer *w, int index);

typedef struct {
  const char *bytes;
  size_t length;
} lk_json_key;

static int lk_json_compare_keys(const void *a, const void *b) {
  const lk_json_key *left = a, *right = b;
  size_t common = left->length < right->length ? left->length : right->length;
  int order = memcmp(left->bytes, right->bytes, common);
  if (order != 0) return order;
  return (left->length > right->length) - (left->length < right->length);
}

static void lk_json_encode_table(lk_json_writer *w, int table) {
  lua_State *L = w->L;
  if (w->depth >= LK_JSON_MAX_DEPTH) {
    lk_json_encode_error(w, "nested more than 200 levels deep (a table that holds itself?)");
  }
  luaL_checkstack(L, 6, "json.encode: nested too deeply");
  int base = lua_gettop(L);
  // A state table read in a reducer is a proxy: its fields are in the table it stands for.
  if (lk_push_proxied_table(L, table)) table = lua_gettop(L);
  // Count the keys: all strings (an object), or exactly 1..n (an array).
  lua_Integer count = 0, strings = 0, largest = 0, positive = 0;
  lua_pushnil(L);
  while (lk_next_visible(L, table)) {
    count++;
    if (lua_type(L, -2) == LUA_TSTRING) {
      strings++;
    } else if (lua_isinteger(L, -2) && lua_tointeger(L, -2) > 0) {
      positive++;
      if (lua_tointeger(L, -2) > largest) largest = lua_tointeger(L, -2);
    }
    lua_pop(L, 1);
  }
  lk_charge(L, count);
  int array = lk_has_array_marker(L, table) || (count > 0 && strings == 0 && largest == count);
  w->depth++;
  if (array) {
    if (strings > 0) {
      w->depth--;
      lk_json_encode_error(w, "an array (it has the array marker) with string keys");
    }
    // The marker makes an empty table an array; it makes no holes fine: what was written
    // depended on where Lua's length found a border (`a[1], a[3]` wrote `[1]`, `{ 1, nil, 3 }`
    // `[1,null,3]`), and keys such as 0 or 1.5 were dropped.
    if (positive != count || largest != count) {
      w->depth--;
      lk_json_encode_error(
          w, "an array (it has the array marker) with keys that are not 1..n (JSON arrays have "
             "no holes; json.null stands for a null)");
    }
    lua_Integer length = (lua_Integer)lua_rawlen(L, table);
    lk_json_add(w, "[", 1);
    for (lua_Integer i = 1; i <= length; i++) {
      if (i > 1) lk_json_add(w, ",", 1);
      w->index[w->depth] = i;
      w->key_slot[w->depth] = 0;
      lua_rawgeti(L, table, i);
      lk_json_encode_value(w, lua_gettop(L));
      lua_pop(L, 1);
    }
    lk_json_add(w, "]", 1);
  } else if (count == 0) {
    lk_json_add(w, "{}", 2);
  } else if (strings != count) {
    w->depth--;
    lk_json_encode_error(
        w, strings == 0 ? "a table with integer keys that are not 1..n (JSON arrays have no holes)"
                        : "a table with both string and other keys (JSON objects have string keys)");
  } else if (count <= LK_JSON_SMALL_OBJECT) {
    // A small object, the common case: its keys and values on the stack, sorted by key through
    // an index (insertion sort), so no field is looked up again.
    luaL_checkstack(L, 2 * (int)count + 2, "json.encode: an object too large for the stack");
    int slots[LK_JSON_SMALL_OBJECT];
    int taken = 0;
    lua_pushnil(L);
    while (lk_next_visible(L, table)) {
      // key value -> key value key: the copy of the key goes on to the next step.
      lua_pushvalue(L, -2);
      if (taken < count) slots[taken++] = lua_gettop(L) - 2;
    }
    for (int i = 1; i < taken; i++) {
      int slot = slots[i];
      lk_json_key key;
      key.bytes = lua_tolstring(L, slot, &key.length);
      int j = i - 1;
      for (; j >= 0; j--) {
        lk_json_key other;
        other.bytes = lua_tolstring(L, slots[j], &other.length);
        if (lk_json_compare_keys(&other, &key) <= 0) break;
        slots[j + 1] = slots[j];
      }
      slots[j + 1] = slot;
    }
    lk_json_add(w, "{", 1);
    for (int i = 0; i < taken; i++) {
      if (i > 0) lk_json_add(w, ",", 1);
      size_t length;
      const char *key = lua_tolstring(L, slots[i], &length);
      w->key_slot[w->depth] = slots[i];
      lk_json_add_string(w, key, length);
      lk_json_add(w, ":", 1);
      lk_json_encode_value(w, slots[i] + 1);
    }
    lk_json_add(w, "}", 1);
  } else {
    // The keys, sorted: the table holds the strings while they are in use.
    lk_json_key *keys = lua_newuserdatauv(L, sizeof(lk_json_key) * (size_t)count, 0);
    lua_Integer taken = 0;
    lua_pushnil(L);
    while (lk_next_visible(L, table)) {
      lua_pop(L, 1);
      if (taken < count) {
        keys[taken].bytes = lua_tolstring(L, -1, &keys[taken].length);
        taken++;
      }
    }
    qsort(keys, (size_t)taken, sizeof(lk_json_key), lk_json_compare_keys);
    lk_json_add(w, "{", 1);
    for (lua_Integer i = 0; i < taken; i++) {
      if (i > 0) lk_json_add(w, ",", 1);
      lua_pushlstring(L, keys[i].bytes, keys[i].length);
      int key = lua_gettop(L);
      w->key_slot[w->depth] = key;
      lk_json_add_string(w, keys[i].bytes, keys[i].length);
      lk_json_add(w, ":", 1);
      lua_pushvalue(L, key);
      lua_rawget(L, table);
      lk_json_encode_value(w, lua_gettop(L));
      lua_pop(L, 2);
    }
    lk_json_add(w, "}", 1);
  }
  w->depth--;
  lua_settop(L, base);
}

static void lk_json_encode_value(lk_json_writer *w, int index) {
  lua_State *L = w->L;
  switch (lua_type(L, index)) {
    case LUA_TNIL:
      lk_json_add(w, "null", 4);
      break;
    case LUA_TBOOLEAN:
      if (lua_toboolean(L, index)) {
        lk_json_add(w, "true", 4);
      } else {
        lk_json_add(w, "false", 5);
      }
      break;
    case LUA_TNUMBER:
      lk_json_add_number(w, index);
      break;
    case LUA_TSTRING: {
      size_t length;
      const char *s = lua_tolstring(L, index, &length);
      lk_json_add_string(w, s, length);
      break;
    }
    case LUA_TLIGHTUSERDATA:
      if (lua_touserdata(L, index) == NULL) {
        lk_json_add(w, "null", 4);
        break;
      }
      lk_json_encode_error(w, "a light userdata has no JSON form");
      break;
    case LUA_TTABLE:
      lk_json_encode_table(w, index);
      break;
    default: {
      char message[80];
      snprintf(message, sizeof message, "a %s has no JSON form", luaL_typename(L, index));
      lk_json_encode_error(w, message);
    }
  }
}

// json.encode(value): the JSON text of `value`.
static int lk_json_encode(lua_State *L) {
  luaL_checkany(L, 1);
  lua_settop(L, 1);
  lk_json_writer w;
  memset(&w, 0, sizeof w);
  w.L = L;
  w.capacity = 256;
  w.data = lua_newuserdatauv(L, w.capacity, 0);
  w.slot = lua_gettop(L);
  lk_json_encode_value(&w, 1);
  lua_pushlstring(L, w.data, w.length);
  return 1;
}

// MARK: - Decoding

typedef struct {
  lua_State *L;
  const char *start, *at, *end;
  int depth;
} lk_json_reader;

// Raises `message` at the line and column where reading stopped.
static int lk_json_decode_error(lk_json_reader *r, const char *message) {
  int line = 1, column = 1;
  for (const char *p = r->start; p < r->at; p++) {
    if (*p == '\n') {
      line++;
      column = 1;
    } else if (((unsigned char)*p & 0xC0) != 0x80) {
      column++;  // a character, not a continuation byte
    }
  }
  if (r->at >= r->end) {
    return luaL_error(r->L, "json.decode: line %d, column %d: %s, got the end of the text",
                      line, column, message);
  }
  unsigned char c = (unsigned char)*r->at;
  if (c >= 0x20 && c < 0x7F) {
    return luaL_error(r->L, "json.decode: line %d, column %d: %s, got '%c'", line, column,
                      message, c);
  }
  return luaL_error(r->L, "json.decode: line %d, column %d: %s, got byte %d", line, column,
                    message, (int)c);
}

static void lk_json_skip_space(lk_json_reader *r) {
  while (r->at < r->end && (*r->at == ' ' || *r->at == '\t' || *r->at == '\n' || *r->at == '\r'))
    r->at++;
}

static int lk_json_hex(const char *p) {
  int value = 0;
  for (int i = 0; i < 4; i++) {
    char c = p[i];
    value <<= 4;
    if (c >= '0' && c <= '9') {
      value |= c - '0';
    } else if (c >= 'a' && c <= 'f') {
      value |= c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      value |= c - 'A' + 10;
    } else {
      return -1;
    }
  }
  return value;
}

static void lk_json_add_utf8(luaL_Buffer *b, unsigned long code) {
  char bytes[4];
  int length;
  if (code < 0x80) {
    bytes[0] = (char)code;
    length = 1;
  } else if (code < 0x800) {
    bytes[0] = (char)(0xC0 | (code >> 6));
    bytes[1] = (char)(0x80 | (code & 0x3F));
    length = 2;
  } else if (code < 0x10000) {
    bytes[0] = (char)(0xE0 | (code >> 12));
    bytes[1] = (char)(0x80 | ((code >> 6) & 0x3F));
    bytes[2] = (char)(0x80 | (code & 0x3F));
    length = 3;
  } else {
    bytes[0] = (char)(0xF0 | (code >> 18));
    bytes[1] = (char)(0x80 | ((code >> 12) & 0x3F));
    bytes[2] = (char)(0x80 | ((code >> 6) & 0x3F));
    bytes[3] = (char)(0x80 | (code & 0x3F));
    length = 4;
  }
  luaL_addlstring(b, bytes, (size_t)length);
}

// Reads a string (at its opening quote) and pushes it.
static void lk_json_read_string(lk_json_reader *r) {
  r->at++;
  const char *run = r->at;
  // The common case, no escapes: pushed in one piece.
  while (r->at < r->end && *r->at != '"' && *r->at != '\\') {
    unsigned char c = (unsigned char)*r->at;
    if (c < 0x20) lk_json_decode_error(r, "a control character must be escaped in a string");
    if (c >= 0x80) {
      size_t sequence = lk_utf8_sequence((const unsigned char *)r->at, (size_t)(r->end - r->at));
      if (sequence == 0) lk_json_decode_error(r, "expected UTF-8 text");
      r->at += sequence;
    } else {
      r->at++;
    }
  }
  if (r->at >= r->end) lk_json_decode_error(r, "expected '\"' to end the string");
  if (*r->at == '"') {
    lua_pushlstring(r->L, run, (size_t)(r->at - run));
    r->at++;
    return;
  }
  luaL_Buffer b;
  luaL_buffinit(r->L, &b);
  luaL_addlstring(&b, run, (size_t)(r->at - run));
  while (r->at < r->end && *r->at != '"') {
    unsigned char c = (unsigned char)*r->at;
    if (c == '\\') {
      if (r->end - r->at < 2) {
        r->at = r->end;
        lk_json_decode_error(r, "expected an escape after '\\'");
      }
      char escape = r->at[1];
      const char *replacement = NULL;
      switch (escape) {
        case '"': replacement = "\""; break;
        case '\\': replacement = "\\"; break;
        case '/': replacement = "/"; break;
        case 'b': replacement = "\b"; break;
        case 'f': replacement = "\f"; break;
        case 'n': replacement = "\n"; break;
        case 'r': replacement = "\r"; break;
        case 't': replacement = "\t"; break;
        case 'u': break;
        default:
          r->at++;
          lk_json_decode_error(r, "expected one of \" \\ / b f n r t u after '\\'");
      }
      if (replacement) {
        luaL_addchar(&b, replacement[0]);
        r->at += 2;
        continue;
      }
      int code = r->end - r->at >= 6 ? lk_json_hex(r->at + 2) : -1;
      if (code < 0) {
        r->at += 2;
        lk_json_decode_error(r, "expected four hexadecimal digits after '\\u'");
      }
      unsigned long scalar = (unsigned long)code;
      if (code >= 0xD800 && code <= 0xDBFF) {  // a high surrogate: its low half must follow
        int low = r->end - r->at >= 12 && r->at[6] == '\\' && r->at[7] == 'u'
                      ? lk_json_hex(r->at + 8) : -1;
        if (low < 0xDC00 || low > 0xDFFF) {
          lk_json_decode_error(r, "expected a low surrogate '\\uDC00'..'\\uDFFF' after a high one");
        }
        scalar = 0x10000 + (((unsigned long)code - 0xD800) << 10) + ((unsigned long)low - 0xDC00);
        r->at += 6;
      } else if (code >= 0xDC00 && code <= 0xDFFF) {
        lk_json_decode_error(r, "expected a high surrogate before a low one");
      }
      lk_json_add_utf8(&b, scalar);
      r->at += 6;
    } else if (c < 0x20) {
      lk_json_decode_error(r, "a control character must be escaped in a string");
    } else if (c >= 0x80) {
      size_t sequence = lk_utf8_sequence((const unsigned char *)r->at, (size_t)(r->end - r->at));
      if (sequence == 0) lk_json_decode_error(r, "expected UTF-8 text");
      luaL_addlstring(&b, r->at, sequence);
      r->at += sequence;
    } else {
      luaL_addchar(&b, (char)c);
      r->at++;
    }
  }
  if (r->at >= r->end) lk_json_decode_error(r, "expected '\"' to end the string");
  r->at++;
  luaL_pushresult(&b);
}

static void lk_json_read_number(lk_json_reader *r) {
  const char *begin = r->at;
  const char *p = r->at;
  int is_float = 0;
  if (p < r->end && *p == '-') p++;
  if (p < r->end && *p == '0') {
    p++;
  } else if (p < r->end && *p >= '1' && *p <= '9') {
    while (p < r->end && *p >= '0' && *p <= '9') p++;
  } else {
    r->at = p;
    lk_json_decode_error(r, "expected a digit");
  }
  if (p < r->end && *p == '.') {
    is_float = 1;
    p++;
    if (p >= r->end || *p < '0' || *p > '9') {
      r->at = p;
      lk_json_decode_error(r, "expected a digit after the decimal point");
    }
    while (p < r->end && *p >= '0' && *p <= '9') p++;
  }
  if (p < r->end && (*p == 'e' || *p == 'E')) {
    is_float = 1;
    p++;
    if (p < r->end && (*p == '+' || *p == '-')) p++;
    if (p >= r->end || *p < '0' || *p > '9') {
      r->at = p;
      lk_json_decode_error(r, "expected a digit in the exponent");
    }
    while (p < r->end && *p >= '0' && *p <= '9') p++;
  }
  char text[400];
  size_t length = (size_t)(p - begin);
  if (length >= sizeof text) lk_json_decode_error(r, "a number of more than 400 characters");
  memcpy(text, begin, length);
  text[length] = 0;
  r->at = p;
  if (!is_float) {
    errno = 0;
    long long integer = strtoll(text, NULL, 10);
    if (errno != ERANGE) {
      lua_pushinteger(r->L, (lua_Integer)integer);
      return;
    }
  }
  // A float, or an integer too large for 64 bits (read as the float nearest to it).
  lua_pushnumber(r->L, strtod(text, NULL));
}

static void lk_json_read_value(lk_json_reader *r);

static void lk_json_read_array(lk_json_reader *r) {
  lua_State *L = r->L;
  r->at++;
  lua_newtable(L);
  lk_mark_array(L, -1);
  lua_Integer count = 0;
  lk_json_skip_space(r);
  if (r->at < r->end && *r->at == ']') {
    r->at++;
    return;
  }
  for (;;) {
    lk_json_read_value(r);
    lua_rawseti(L, -2, ++count);
    lk_json_skip_space(r);
    if (r->at < r->end && *r->at == ',') {
      r->at++;
      continue;
    }
    if (r->at < r->end && *r->at == ']') {
      r->at++;
      return;
    }
    lk_json_decode_error(r, "expected ',' or ']' after an element of an array");
  }
}

static void lk_json_read_object(lk_json_reader *r) {
  lua_State *L = r->L;
  r->at++;
  lua_newtable(L);
  lk_json_skip_space(r);
  if (r->at < r->end && *r->at == '}') {
    r->at++;
    return;
  }
  for (;;) {
    lk_json_skip_space(r);
    if (r->at >= r->end || *r->at != '"') {
      lk_json_decode_error(r, "expected a string naming a field of an object");
    }
    lk_json_read_string(r);
    lk_json_skip_space(r);
    if (r->at >= r->end || *r->at != ':') lk_json_decode_error(r, "expected ':' after a field name");
    r->at++;
    lk_json_read_value(r);
    lua_rawset(L, -3);
    lk_json_skip_space(r);
    if (r->at < r->end && *r->at == ',') {
      r->at++;
      continue;
    }
    if (r->at < r->end && *r->at == '}') {
      r->at++;
      return;
    }
    lk_json_decode_error(r, "expected ',' or '}' after a field of an object");
  }
}

static int lk_json_literal(lk_json_reader *r, const char *word) {
  size_t length = strlen(word);
  if ((size_t)(r->end - r->at) < length || memcmp(r->at, word, length) != 0) return 0;
  r->at += length;
  return 1;
}

static void lk_json_read_value(lk_json_reader *r) {
  lua_State *L = r->L;
  lk_json_skip_space(r);
  if (r->at >= r->end) lk_json_decode_error(r, "expected a value");
  switch (*r->at) {
    case '{':
    case '[':
      if (r->depth >= LK_JSON_MAX_DEPTH) {
        lk_json_decode_error(r, "nested more than 200 levels deep");
      }
      luaL_checkstack(L, 4, "json.decode: nested too deeply");
      r->depth++;
      if (*r->at == '{') {
        lk_json_read_object(r);
      } else {
        lk_json_read_array(r);
      }
      r->depth--;
      return;
    case '"':
      lk_json_read_string(r);
      return;
    case 't':
      if (lk_json_literal(r, "true")) {
        lua_pushboolean(L, 1);
        return;
      }
      break;
    case 'f':
      if (lk_json_literal(r, "false")) {
        lua_pushboolean(L, 0);
        return;
      }
      break;
    case 'n':
      if (lk_json_literal(r, "null")) {
        lua_pushlightuserdata(L, NULL);
        return;
      }
      break;
    default:
      if (*r->at == '-' || (*r->at >= '0' && *r->at <= '9')) {
        lk_json_read_number(r);
        return;
      }
  }
  lk_json_decode_error(r, "expected a value (an object, array, string, number, true, false or null)");
}

// json.decode(text): the value the JSON text stands for.
static int lk_json_decode(lua_State *L) {
  size_t length;
  const char *text = luaL_checklstring(L, 1, &length);
  lk_charge(L, (lua_Integer)(length / LK_JSON_BYTES_PER_INSTRUCTION));
  lk_json_reader r = {L, text, text, text + length, 0};
  lua_settop(L, 1);
  lk_json_read_value(&r);
  lk_json_skip_space(&r);
  if (r.at < r.end) lk_json_decode_error(&r, "expected the end of the text after the value");
  return 1;
}

// json.array(t): `t` (a new table by default), marked as an array, so that it stays one when
// it is empty.
static int lk_json_array(lua_State *L) {
  if (lua_isnoneornil(L, 1)) {
    lua_settop(L, 0);
    lua_newtable(L);
  } else {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    if (lk_push_proxied_table(L, 1)) {
      return luaL_error(L, "json.array: the table is part of the state; mark a new table "
                           "(json.array({ ... })) and store that");
    }
    if (lua_getmetatable(L, 1)) {
      if (!lk_has_array_marker(L, 1)) {
        return luaL_error(L, "json.array: the table has a metatable of its own");
      }
      lua_pop(L, 1);
      return 1;
    }
  }
  lk_mark_array(L, 1);
  return 1;
}

void lk_push_json_module(lua_State *L) {
  static const luaL_Reg functions[] = {
      {"encode", lk_json_encode},
      {"decode", lk_json_decode},
      {"array", lk_json_array},
      {NULL, NULL},
  };
  luaL_newlib(L, functions);
  lua_pushlightuserdata(L, NULL);
  lua_setfield(L, -2, "null");
}
