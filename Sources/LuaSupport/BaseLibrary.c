// Base functions as Lua 5.4.4 has them, where the sandbox needs them to do more:
//
// - `pcall` and `xpcall` catch errors, but not a stop: once the budget is spent or the time is
//   up (lk_stop), they raise it again, so no Lua code goes on past a limit (the call fails even
//   if something caught the error before it got here, see lk_pcall).
//   `xpcall`'s handler does not see a stop's error (see lk_xpcall_handler).
// - `tonumber` charges the bytes of the string it reads.
// - `load` gives the parser its chunk in pieces, charged one by one (LK_SOURCE_PIECE), the
//   real globals' as the sandbox's: no source parses for long before a limit is looked at.
// - `load`, `print` and `warn` belong to a sandbox: `load` compiles text only, and a chunk with
//   no environment given gets the sandbox's globals (an explicit `nil` stays nil, as in Lua);
//   `print` and `warn` write through the host. They are made per sandbox by the functions in
//   the table `lk_sandbox_tools_key` leaves in the globals for the sandbox's bootstrap, which
//   takes it and removes it (Sources/LuaKit/Lua/sandbox.lua).
//
// Each is called directly from Lua, so its argument errors name it and its errors point at the
// Lua line that called, as Lua's own do.
#include "LuaState.h"

#include <ctype.h>
#include <string.h>

enum { LK_BYTES_PER_INSTRUCTION = 16 };

// MARK: - pcall, xpcall

// After the protected call: what pcall returns, unless a stop is in effect.
static int lk_finish_pcall(lua_State *L, int status, lua_KContext extra) {
  lk_caught(L);
  if (status != LUA_OK && status != LUA_YIELD) {
    lk_shape_error_caught(&lk_info_of(L)->shape);
    lua_pushboolean(L, 0);
    lua_pushvalue(L, -2);
    return 2;
  }
  return lua_gettop(L) - (int)extra;
}

static int lk_pcall_function(lua_State *L) {
  luaL_checkany(L, 1);
  lua_pushboolean(L, 1);
  lua_insert(L, 1);
  int status = lua_pcallk(L, lua_gettop(L) - 2, LUA_MULTRET, 0, 0, lk_finish_pcall);
  return lk_finish_pcall(L, status, 0);
}

// The message handler xpcall gives Lua (upvalue 1: the caller's). A stop's error goes through
// as it is: Lua runs the handler of an error raised inside a hook with hooks off, and the stop
// is raised from the count hook, so the caller's handler would run where nothing could stop it.
static int lk_xpcall_handler(lua_State *L) {
  if (lk_stopped(L)) return 1;
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, 1);
  return 1;
}

// The stack becomes (f, handler, true, f, arguments...): results start after the first two.
static int lk_xpcall_function(lua_State *L) {
  int count = lua_gettop(L);
  luaL_checktype(L, 2, LUA_TFUNCTION);
  lua_pushvalue(L, 2);
  lua_pushcclosure(L, lk_xpcall_handler, 1);
  lua_replace(L, 2);
  lua_pushboolean(L, 1);
  lua_pushvalue(L, 1);
  lua_rotate(L, 3, 2);
  int status = lua_pcallk(L, count - 2, LUA_MULTRET, 2, 2, lk_finish_pcall);
  return lk_finish_pcall(L, status, 2);
}

// MARK: - tonumber

static const char *const lk_spaces = " \f\n\r\t\v";

// The integer `s` writes in `base`, into `*value`; the end of what was read, or NULL.
static const char *lk_integer_in_base(const char *s, int base, lua_Integer *value) {
  lua_Unsigned n = 0;
  int negative = 0;
  s += strspn(s, lk_spaces);
  if (*s == '-') {
    s++;
    negative = 1;
  } else if (*s == '+') {
    s++;
  }
  if (!isalnum((unsigned char)*s)) return NULL;
  do {
    int digit = isdigit((unsigned char)*s) ? *s - '0' : toupper((unsigned char)*s) - 'A' + 10;
    if (digit >= base) return NULL;
    n = n * (lua_Unsigned)base + (lua_Unsigned)digit;
    s++;
  } while (isalnum((unsigned char)*s));
  s += strspn(s, lk_spaces);
  *value = (lua_Integer)(negative ? 0u - n : n);
  return s;
}

static int lk_tonumber(lua_State *L) {
  if (lua_isnoneornil(L, 2)) {
    if (lua_type(L, 1) == LUA_TNUMBER) {
      lua_settop(L, 1);
      return 1;
    }
    size_t length;
    const char *s = lua_tolstring(L, 1, &length);
    if (s != NULL) {
      lk_charge(L, (lua_Integer)(length / LK_BYTES_PER_INSTRUCTION));
      if (lua_stringtonumber(L, s) == length + 1) return 1;
    }
    luaL_checkany(L, 1);
  } else {
    lua_Integer base = luaL_checkinteger(L, 2);
    luaL_checktype(L, 1, LUA_TSTRING);
    size_t length;
    const char *s = lua_tolstring(L, 1, &length);
    luaL_argcheck(L, 2 <= base && base <= 36, 2, "base out of range");
    lk_charge(L, (lua_Integer)(length / LK_BYTES_PER_INSTRUCTION));
    lua_Integer value;
    if (lk_integer_in_base(s, (int)base, &value) == s + length) {
      lua_pushinteger(L, value);
      return 1;
    }
  }
  luaL_pushfail(L);
  return 1;
}

// MARK: - load

// Where a reader function's last piece is kept alive while the parser reads it.
enum { LK_LOAD_PIECE_SLOT = 5 };

typedef struct {
  const char *rest;  // what the parser has not been given yet of the current piece
  size_t length;
  int from_function;  // the pieces come from a reader function (arg 1), not a string
  const char *mode;   // as given: Lua checks it
  int refuse_bytecode;  // the sandbox's load: bytecode is refused even where the mode allows it
  int started;        // the first piece was handed over
  int64_t started_ns;
  int refused;        // the first piece was bytecode, refused: the chunk ended there
} lk_load_source;

static const char *const lk_bytecode_refused =
    "attempt to load a binary chunk (bytecode is refused in the sandbox)";

// The next piece of the chunk, at most LK_SOURCE_PIECE bytes of it, charged (see
// lk_charge_source); the first is refused if it starts bytecode where that is refused.
static const char *lk_load_read(lua_State *L, void *data, size_t *size) {
  lk_load_source *source = data;
  if (source->length == 0 && source->from_function) {
    luaL_checkstack(L, 2, "too many nested functions");
    lua_pushvalue(L, 1);
    lua_call(L, 0, 1);
    if (lua_isnil(L, -1)) {
      lua_pop(L, 1);
      *size = 0;
      return NULL;
    }
    if (!lua_isstring(L, -1)) luaL_error(L, "reader function must return a string");
    lua_replace(L, LK_LOAD_PIECE_SLOT);
    source->rest = lua_tolstring(L, LK_LOAD_PIECE_SLOT, &source->length);
  }
  if (source->length == 0) {
    *size = 0;
    return NULL;
  }
  if (!source->started && source->refuse_bytecode && source->rest[0] == LUA_SIGNATURE[0] &&
      strchr(source->mode, 'b') != NULL) {
    // Not an error raised here, which would pass the caller's message handler (a traceback):
    // the chunk ends, and load answers as it does for a string of bytecode.
    source->refused = 1;
    *size = 0;
    return NULL;
  }
  source->started = 1;
  *size = source->length < LK_SOURCE_PIECE ? source->length : LK_SOURCE_PIECE;
  lk_charge_source(L, *size, source->started_ns);
  const char *piece = source->rest;
  source->rest += *size;
  source->length -= *size;
  return piece;
}

// load(chunk [, chunkname [, mode [, env]]]), given its parser the chunk in pieces. An absent
// `env` is `environment` (an index), or the globals when that is 0.
static int lk_load(lua_State *L, int environment, int refuse_bytecode) {
  size_t length;
  const char *s = lua_tolstring(L, 1, &length);
  const char *mode = luaL_optstring(L, 3, "bt");
  if (!lua_isnone(L, 4)) environment = 4;
  lk_load_source source = {s, length, s == NULL, mode, refuse_bytecode, 0, lk_monotonic_ns(), 0};
  const char *chunkname;
  if (s != NULL) {
    chunkname = luaL_optstring(L, 2, s);
  } else {
    chunkname = luaL_optstring(L, 2, "=(load)");
    luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_settop(L, LK_LOAD_PIECE_SLOT);
  }
  if (refuse_bytecode && s != NULL && length > 0 && s[0] == LUA_SIGNATURE[0] &&
      strchr(mode, 'b') != NULL) {
    lua_pushstring(L, lk_bytecode_refused);  // before Lua would take it as bytecode
    luaL_pushfail(L);
    lua_insert(L, -2);
    return 2;
  }
  int status = lua_load(L, lk_load_read, &source, chunkname, mode);
  lk_caught(L);
  if (source.refused) {
    lua_pop(L, 1);  // what the parser made of no text
    luaL_pushfail(L);
    lua_pushstring(L, lk_bytecode_refused);
    return 2;
  }
  if (status != LUA_OK) {
    luaL_pushfail(L);
    lua_insert(L, -2);
    return 2;
  }
  if (environment != 0) {
    lua_pushvalue(L, environment);
    if (!lua_setupvalue(L, -2, 1)) lua_pop(L, 1);
  }
  return 1;
}

// load in a sandbox (upvalue 1: its globals). The environment is always set: a chunk loaded
// with no environment given would otherwise see the real globals.
static int lk_sandbox_load(lua_State *L) { return lk_load(L, lua_upvalueindex(1), 1); }

// The real globals' load, for the host's trusted Lua (the sandbox's bootstrap loads modules
// with it, bytecode the build compiled among them): Lua's own, but for the pieces.
static int lk_trusted_load(lua_State *L) { return lk_load(L, 0, 0); }

static int lk_make_sandbox_load(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 1);
  lua_pushcclosure(L, lk_sandbox_load, 1);
  return 1;
}

// MARK: - print, warn

// Calls the host's print (upvalue 1) with the string on top, popping it.
static void lk_host_print(lua_State *L) {
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, -2);
  lua_call(L, 1, 0);
}

// print(...): the arguments as tostring gives them, tab-separated, one line to the host.
static int lk_sandbox_print(lua_State *L) {
  int count = lua_gettop(L);
  luaL_Buffer line;
  luaL_buffinit(L, &line);
  for (int i = 1; i <= count; i++) {
    if (i > 1) luaL_addchar(&line, '\t');
    luaL_tolstring(L, i, NULL);
    luaL_addvalue(&line);
  }
  luaL_pushresult(&line);
  lk_host_print(L);
  return 0;
}

static int lk_make_sandbox_print(lua_State *L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_settop(L, 1);
  lua_pushcclosure(L, lk_sandbox_print, 1);
  return 1;
}

// warn(msg1, ...): off until "@on", as `lua5.4` has it; a warning is one line to the host,
// "Lua warning: " and the pieces. Upvalue 2: whether warnings are on.
static int lk_sandbox_warn(lua_State *L) {
  int count = lua_gettop(L);
  luaL_checkstring(L, 1);
  for (int i = 2; i <= count; i++) luaL_checkstring(L, i);
  const char *first = lua_tostring(L, 1);
  if (count == 1 && first[0] == '@') {  // a control message
    if (strcmp(first + 1, "on") == 0 || strcmp(first + 1, "off") == 0) {
      lua_pushboolean(L, first[2] == 'n');
      lua_replace(L, lua_upvalueindex(2));
    }
    return 0;
  }
  if (!lua_toboolean(L, lua_upvalueindex(2))) return 0;
  luaL_Buffer line;
  luaL_buffinit(L, &line);
  luaL_addstring(&line, "Lua warning: ");
  for (int i = 1; i <= count; i++) {
    lua_pushvalue(L, i);
    luaL_addvalue(&line);
  }
  luaL_pushresult(&line);
  lk_host_print(L);
  return 0;
}

static int lk_make_sandbox_warn(lua_State *L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_settop(L, 1);
  lua_pushboolean(L, 0);
  lua_pushcclosure(L, lk_sandbox_warn, 2);
  return 1;
}

// MARK: - Opening

void lk_base_library_open(lua_State *L) {
  static const luaL_Reg functions[] = {
      {"pcall", lk_pcall_function}, {"xpcall", lk_xpcall_function},
      {"tonumber", lk_tonumber}, {"load", lk_trusted_load}, {NULL, NULL},
  };
  lua_pushglobaltable(L);
  luaL_setfuncs(L, functions, 0);
  static const luaL_Reg tools[] = {
      {"load", lk_make_sandbox_load}, {"print", lk_make_sandbox_print},
      {"warn", lk_make_sandbox_warn}, {NULL, NULL},
  };
  luaL_newlib(L, tools);
  lua_setfield(L, -2, "luakit.sandbox_tools");
  lua_pop(L, 1);
}
