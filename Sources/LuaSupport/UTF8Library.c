// utf8.len, codepoint, offset and codes, written again so that their loops are charged.
//
// Each walks a string byte by byte in C: `utf8.len(s)` and `utf8.offset(s, n)` over a string
// of the memory cap's size, called in a loop, would be one instruction each. These do what
// Lua 5.4.4's do (the same arguments checked the same way, the same answers and errors) and
// charge what they walked, once done: a walk is at most the string, which the memory cap bounds,
// so charging after it changes no answer or error that Lua gives. `utf8.char` and `utf8.charpattern` are Lua's own.
#include "LuaState.h"

#include <limits.h>

enum { LK_UTF8_MAX = 0x7FFFFFFFu, LK_UNICODE_MAX = 0x10FFFFu, LK_BYTES_PER_INSTRUCTION = 16 };

static int lk_is_continuation(const char *p) { return (*p & 0xC0) == 0x80; }

// A position as utf8's functions read it: negative counts from the end, and too far back is 0.
static lua_Integer lk_utf8_position(lua_Integer position, size_t length) {
  if (position >= 0) return position;
  if (0u - (size_t)position > length) return 0;
  return (lua_Integer)length + position + 1;
}

// Decodes the sequence at `s` into `*code` (if given); its end, or NULL if it is not UTF-8.
// `strict` refuses surrogates and code points past U+10FFFF.
static const char *lk_utf8_decode(const char *s, unsigned *code, int strict) {
  static const unsigned smallest[] = {~0u, 0x80, 0x800, 0x10000u, 0x200000u, 0x4000000u};
  unsigned c = (unsigned char)s[0];
  unsigned result = 0;
  if (c < 0x80) {
    result = c;
  } else {
    int count = 0;  // continuation bytes
    for (; c & 0x40; c <<= 1) {
      unsigned next = (unsigned char)s[++count];
      if ((next & 0xC0) != 0x80) return NULL;
      result = (result << 6) | (next & 0x3F);
    }
    result |= (unsigned)(c & 0x7F) << (count * 5);
    if (count > 5 || result > LK_UTF8_MAX || result < smallest[count]) return NULL;
    s += count;
  }
  if (strict && (result > LK_UNICODE_MAX || (0xD800u <= result && result <= 0xDFFFu))) {
    return NULL;
  }
  if (code != NULL) *code = result;
  return s + 1;
}

// utf8.len(s [, i [, j [, lax]]])
static int lk_utf8_len(lua_State *L) {
  size_t length;
  const char *s = luaL_checklstring(L, 1, &length);
  lua_Integer first = lk_utf8_position(luaL_optinteger(L, 2, 1), length);
  lua_Integer last = lk_utf8_position(luaL_optinteger(L, 3, -1), length);
  int lax = lua_toboolean(L, 4);
  luaL_argcheck(L, 1 <= first && --first <= (lua_Integer)length, 2,
                "initial position out of bounds");
  luaL_argcheck(L, --last < (lua_Integer)length, 3, "final position out of bounds");
  lua_Integer count = 0, from = first;
  while (first <= last) {
    const char *next = lk_utf8_decode(s + first, NULL, !lax);
    if (next == NULL) {
      lk_charge(L, (first - from) / LK_BYTES_PER_INSTRUCTION);
      luaL_pushfail(L);
      lua_pushinteger(L, first + 1);
      return 2;
    }
    first = next - s;
    count++;
  }
  lk_charge(L, (first - from) / LK_BYTES_PER_INSTRUCTION);  // what it walked: at most the string
  lua_pushinteger(L, count);
  return 1;
}

// utf8.codepoint(s [, i [, j [, lax]]])
static int lk_utf8_codepoint(lua_State *L) {
  size_t length;
  const char *s = luaL_checklstring(L, 1, &length);
  lua_Integer first = lk_utf8_position(luaL_optinteger(L, 2, 1), length);
  lua_Integer last = lk_utf8_position(luaL_optinteger(L, 3, first), length);
  int lax = lua_toboolean(L, 4);
  luaL_argcheck(L, first >= 1, 2, "out of bounds");
  luaL_argcheck(L, last <= (lua_Integer)length, 3, "out of bounds");
  if (first > last) return 0;
  if (last - first >= INT_MAX) return luaL_error(L, "string slice too long");
  int most = (int)(last - first) + 1;
  luaL_checkstack(L, most, "string slice too long");
  int count = 0;
  const char *end = s + last;
  for (s += first - 1; s < end;) {
    unsigned code;
    s = lk_utf8_decode(s, &code, !lax);
    if (s == NULL) return luaL_error(L, "invalid UTF-8 code");
    lua_pushinteger(L, code);
    count++;
  }
  lk_charge(L, count);
  return count;
}

// utf8.offset(s, n [, i])
static int lk_utf8_offset(lua_State *L) {
  size_t length;
  const char *s = luaL_checklstring(L, 1, &length);
  lua_Integer n = luaL_checkinteger(L, 2);
  lua_Integer position = n >= 0 ? 1 : (lua_Integer)length + 1;
  position = lk_utf8_position(luaL_optinteger(L, 3, position), length);
  luaL_argcheck(L, 1 <= position && --position <= (lua_Integer)length, 3,
                "position out of bounds");
  lua_Integer from = position;
  if (n == 0) {
    while (position > 0 && lk_is_continuation(s + position)) position--;
  } else {
    if (lk_is_continuation(s + position)) {
      return luaL_error(L, "initial position is a continuation byte");
    }
    if (n < 0) {
      while (n < 0 && position > 0) {
        do {
          position--;
        } while (position > 0 && lk_is_continuation(s + position));
        n++;
      }
    } else {
      n--;
      while (n > 0 && position < (lua_Integer)length) {
        do {
          position++;
        } while (lk_is_continuation(s + position));  // stops at the final '\0'
        n--;
      }
    }
  }
  lua_Integer walked = position > from ? position - from : from - position;
  lk_charge(L, walked / LK_BYTES_PER_INSTRUCTION);
  if (n == 0) lua_pushinteger(L, position + 1);
  else luaL_pushfail(L);
  return 1;
}

// The iterator utf8.codes returns: the position and code point after the control value.
static int lk_utf8_next(lua_State *L, int strict) {
  size_t length;
  const char *s = luaL_checklstring(L, 1, &length);
  lua_Unsigned n = (lua_Unsigned)lua_tointeger(L, 2);
  lua_Unsigned from = n;
  if (n < length) {
    while (lk_is_continuation(s + n)) n++;
  }
  if (n > from) lk_charge(L, (lua_Integer)((n - from) / LK_BYTES_PER_INSTRUCTION));
  if (n >= length) return 0;
  unsigned code;
  if (lk_utf8_decode(s + n, &code, strict) == NULL) {
    return luaL_error(L, "invalid UTF-8 code");
  }
  lua_pushinteger(L, (lua_Integer)n + 1);
  lua_pushinteger(L, code);
  return 2;
}

static int lk_utf8_next_strict(lua_State *L) { return lk_utf8_next(L, 1); }
static int lk_utf8_next_lax(lua_State *L) { return lk_utf8_next(L, 0); }

// utf8.codes(s [, lax])
static int lk_utf8_codes(lua_State *L) {
  int lax = lua_toboolean(L, 2);
  luaL_checkstring(L, 1);
  lua_pushcfunction(L, lax ? lk_utf8_next_lax : lk_utf8_next_strict);
  lua_pushvalue(L, 1);
  lua_pushinteger(L, 0);
  return 3;
}

void lk_utf8_library_open(lua_State *L) {
  static const luaL_Reg functions[] = {
      {"len", lk_utf8_len}, {"codepoint", lk_utf8_codepoint}, {"offset", lk_utf8_offset},
      {"codes", lk_utf8_codes}, {NULL, NULL},
  };
  lua_getglobal(L, "utf8");
  luaL_setfuncs(L, functions, 0);
  lua_pop(L, 1);
}
