// string.rep and string.byte, written again so that their work is charged to the budget after
// their arguments are checked as Lua 5.4.4 checks them, and string.pack, unpack and packsize
// charged for their format (the pattern functions are in Patterns.c).
//
// `string.rep("", 2^62)` loops 2^62 times copying nothing; `string.rep("x", 2^40)` copies a
// terabyte; `string.byte(s, 1, -1)` pushes one value per byte. Each is charged for what it
// will really do (the range normalized first), so a call that cannot fit in what is left of
// the budget fails at once, while the errors Lua raises for bad arguments ("resulting string
// too large", "string slice too long") come first, with Lua's words, catchable by `pcall`.
#include "LuaState.h"

#include <limits.h>
#include <string.h>

// Bytes copied per instruction charged: a copy is cheaper than an instruction.
enum { LK_BYTES_PER_INSTRUCTION = 16 };

// The longest string the string library makes (Lua 5.4.4's MAXSIZE in lstrlib.c).
#define LK_MAX_STRING (sizeof(size_t) < sizeof(int) ? (size_t)~(size_t)0 : (size_t)INT_MAX)

// string.rep(s, n [, sep])
static int lk_string_rep(lua_State *L) {
  size_t length, separator_length;
  const char *s = luaL_checklstring(L, 1, &length);
  lua_Integer count = luaL_checkinteger(L, 2);
  const char *separator = luaL_optlstring(L, 3, "", &separator_length);
  if (count <= 0 || length + separator_length == 0) {
    // Nothing to repeat makes "", at once (Lua's loop would copy nothing n times).
    lua_pushliteral(L, "");
    return 1;
  }
  if (length + separator_length < length ||
      length + separator_length > LK_MAX_STRING / (size_t)count) {
    return luaL_error(L, "resulting string too large");
  }
  size_t total = (size_t)count * length + (size_t)(count - 1) * separator_length;
  lk_reserve_memory(L, total);
  lk_charge(L, (lua_Integer)(total / LK_BYTES_PER_INSTRUCTION) + count / 64);
  luaL_Buffer buffer;
  char *p = luaL_buffinitsize(L, &buffer, total);
  for (; count > 1; count--) {
    memcpy(p, s, length);
    p += length;
    if (separator_length > 0) {
      memcpy(p, separator, separator_length);
      p += separator_length;
    }
  }
  memcpy(p, s, length);
  luaL_pushresultsize(&buffer, total);
  return 1;
}

// A start position as Lua's string functions read it: negative counts from the end, clipped
// to [1, ...].
static size_t lk_start_of(lua_Integer position, size_t length) {
  if (position > 0) return (size_t)position;
  if (position == 0) return 1;
  if (position < -(lua_Integer)length) return 1;
  return length + (size_t)position + 1;
}

// An end position (argument `arg`, `fallback` when absent): negative counts from the end,
// clipped to [0, length].
static size_t lk_end_of(lua_State *L, int arg, lua_Integer fallback, size_t length) {
  lua_Integer position = luaL_optinteger(L, arg, fallback);
  if (position > (lua_Integer)length) return length;
  if (position >= 0) return (size_t)position;
  if (position < -(lua_Integer)length) return 0;
  return length + (size_t)position + 1;
}

// string.byte(s [, i [, j]])
static int lk_string_byte(lua_State *L) {
  size_t length;
  const char *s = luaL_checklstring(L, 1, &length);
  lua_Integer first_argument = luaL_optinteger(L, 2, 1);
  size_t first = lk_start_of(first_argument, length);
  size_t last = lk_end_of(L, 3, first_argument, length);
  if (first > last) return 0;
  if (last - first >= (size_t)INT_MAX) return luaL_error(L, "string slice too long");
  int count = (int)(last - first) + 1;
  luaL_checkstack(L, count, "string slice too long");
  lk_charge(L, count);
  for (int i = 0; i < count; i++) lua_pushinteger(L, (unsigned char)s[first + i - 1]);
  return count;
}

// string.pack, string.unpack and string.packsize: Lua's own (upvalue 1), after a charge of one
// instruction per byte of the format (arg 1 of each), which each reads item by item in C. What
// they make is charged by the allocator; `unpack` pushes at most one value per format byte.
// The original is called directly (not through lua_call), so its errors name the function as
// Lua's do.
static int lk_string_format_charged(lua_State *L) {
  size_t length;
  luaL_checklstring(L, 1, &length);
  lk_charge(L, (lua_Integer)length);
  return lua_tocfunction(L, lua_upvalueindex(1))(L);
}

void lk_string_library_open(lua_State *L) {
  static const luaL_Reg functions[] = {
      {"rep", lk_string_rep}, {"byte", lk_string_byte}, {NULL, NULL},
  };
  static const char *const charged[] = {"pack", "unpack", "packsize"};
  lua_getglobal(L, "string");
  luaL_setfuncs(L, functions, 0);
  for (int i = 0; i < 3; i++) {
    lua_getfield(L, -1, charged[i]);
    lua_pushcclosure(L, lk_string_format_charged, 1);
    lua_setfield(L, -2, charged[i]);
  }
  lua_pop(L, 1);
}
