// Lua functions that can do nothing but read their arguments.
//
// A sort's order function is called some ten thousand times for a thousand elements, and each
// call reads fields of two state tables. Through proxies a read is a metamethod's lookup; on the
// real tables it is the VM's own. Handing a function the real tables is safe only when nothing
// it does can write them, keep them, or pass them to code that could: this file tells such a
// function from its bytecode (lua_dump, stripped), which shows every operation it can make.
//
// What it may do: move values, load constants, read fields (GETFIELD, GETI, GETTABLE), compare,
// test, jump, loop over numbers, compute (arithmetic, bitwise, length, concatenation), read its
// upvalues, return. What it may not: call (CALL, TAILCALL, SELF, TFORCALL), write a table, an
// upvalue or a global, read a global (GETTABUP: _ENV is a table), make a table or a closure,
// close a variable. The only code such a function can start is a metamethod, and the only
// values it can reach are its arguments (a state's tables, which have no metatable but the
// array marker, one without metamethods), what they hold (tables, strings, numbers, booleans),
// its constants and its upvalues (allowed only when they hold nil, booleans, numbers or
// strings). So the metamethods it can reach are the strings' (`a < "x"`, `a .. s`, `s[a]`),
// and those are trusted only while the strings' metatable is as the libraries left it and the
// string table it reads through has no metatable: a feature may change both, as plain Lua lets
// it, and then order functions get proxies again. Numbers, booleans and nil have no metatable
// a feature can set (no `debug` library); `setmetatable` refuses `__gc`, so no finalizer runs
// in the middle either.
#include "LuaState.h"

#include <string.h>

// Lua 5.4's opcodes (lopcodes.h, which is not installed), by number: the ones an order
// function may use. Checked against `luac5.4 -l` (ReadingFunctionsTests).
enum {
  LK_OP_MOVE = 0, LK_OP_LOADI, LK_OP_LOADF, LK_OP_LOADK, LK_OP_LOADKX, LK_OP_LOADFALSE,
  LK_OP_LFALSESKIP, LK_OP_LOADTRUE, LK_OP_LOADNIL, LK_OP_GETUPVAL, LK_OP_SETUPVAL,
  LK_OP_GETTABUP, LK_OP_GETTABLE, LK_OP_GETI, LK_OP_GETFIELD, LK_OP_SETTABUP, LK_OP_SETTABLE,
  LK_OP_SETI, LK_OP_SETFIELD, LK_OP_NEWTABLE, LK_OP_SELF, LK_OP_ADDI,  // 21
  LK_OP_MMBINK = 48, LK_OP_UNM, LK_OP_BNOT, LK_OP_NOT, LK_OP_LEN, LK_OP_CONCAT, LK_OP_CLOSE,
  LK_OP_TBC, LK_OP_JMP, LK_OP_EQ, LK_OP_LT, LK_OP_LE, LK_OP_EQK, LK_OP_EQI, LK_OP_LTI,
  LK_OP_LEI, LK_OP_GTI, LK_OP_GEI, LK_OP_TEST, LK_OP_TESTSET, LK_OP_CALL, LK_OP_TAILCALL,
  LK_OP_RETURN, LK_OP_RETURN0, LK_OP_RETURN1, LK_OP_FORLOOP, LK_OP_FORPREP,  // 74
  LK_OP_VARARG = 80, LK_OP_VARARGPREP, LK_OP_EXTRAARG,
};

static int lk_op_reads_only(unsigned op) {
  if (op >= LK_OP_ADDI && op <= LK_OP_MMBINK) return 1;  // arithmetic, bitwise, their MMBIN
  switch (op) {
    case LK_OP_MOVE: case LK_OP_LOADI: case LK_OP_LOADF: case LK_OP_LOADK: case LK_OP_LOADKX:
    case LK_OP_LOADFALSE: case LK_OP_LFALSESKIP: case LK_OP_LOADTRUE: case LK_OP_LOADNIL:
    case LK_OP_GETUPVAL: case LK_OP_GETTABLE: case LK_OP_GETI: case LK_OP_GETFIELD:
    case LK_OP_UNM: case LK_OP_BNOT: case LK_OP_NOT: case LK_OP_LEN: case LK_OP_CONCAT:
    case LK_OP_JMP: case LK_OP_EQ: case LK_OP_LT: case LK_OP_LE: case LK_OP_EQK: case LK_OP_EQI:
    case LK_OP_LTI: case LK_OP_LEI: case LK_OP_GTI: case LK_OP_GEI: case LK_OP_TEST:
    case LK_OP_TESTSET: case LK_OP_RETURN: case LK_OP_RETURN0: case LK_OP_RETURN1:
    case LK_OP_FORLOOP: case LK_OP_FORPREP: case LK_OP_VARARG: case LK_OP_VARARGPREP:
    case LK_OP_EXTRAARG:
      return 1;
    default:
      return 0;
  }
}

// MARK: - The bytecode

// The start of a function's dump: the header and its code, enough for a function of about a
// thousand instructions. A longer one is not looked at (an order function is short).
enum { LK_DUMP_KEPT = 4096 };

typedef struct {
  size_t length;
  unsigned char bytes[LK_DUMP_KEPT];
} lk_dump_start;

// lua_dump's writer: keeps what fits, then stops the dump (a non-zero return).
static int lk_keep_dump(lua_State *L, const void *piece, size_t size, void *data) {
  (void)L;
  lk_dump_start *start = data;
  size_t room = LK_DUMP_KEPT - start->length;
  size_t kept = size < room ? size : room;
  memcpy(start->bytes + start->length, piece, kept);
  start->length += kept;
  return kept < size;
}

// Reads a size as ldump.c writes it (7 bits a byte, most significant first, the last byte
// marked with 0x80) at *at, moving past it; 0 when it runs past the kept bytes or is absurd.
static int lk_dump_size(const lk_dump_start *start, size_t *at, size_t *size) {
  size_t value = 0;
  for (int bytes = 0; *at < start->length && bytes < 4; bytes++) {
    unsigned char byte = start->bytes[(*at)++];
    value = (value << 7) | (byte & 0x7f);
    if (byte & 0x80) {
      *size = value;
      return 1;
    }
  }
  return 0;
}

// Whether the dumped function's every instruction is one lk_op_reads_only allows. The header
// is checked to be Lua 5.4's, with 4-byte instructions and 8-byte integers and floats: any
// other dump (an unknown build) is not understood, so not trusted.
static int lk_dump_reads_only(const lk_dump_start *start) {
  static const unsigned char header[] = {0x1b, 'L', 'u', 'a', 0x54, 0,    0x19, 0x93,
                                         '\r', '\n', 0x1a, '\n', 4,   8,    8};
  enum { LK_HEADER = 31 };  // the above, then a check integer and a check float
  if (start->length < LK_HEADER + 1 || memcmp(start->bytes, header, sizeof header) != 0) {
    return 0;
  }
  size_t at = LK_HEADER + 1;  // past the main function's count of upvalues
  size_t source, line, last_line, count;
  if (!lk_dump_size(start, &at, &source) || source != 0) return 0;  // stripped: no source
  if (!lk_dump_size(start, &at, &line) || !lk_dump_size(start, &at, &last_line)) return 0;
  at += 3;  // parameters, whether vararg, stack size
  if (!lk_dump_size(start, &at, &count) || count == 0) return 0;
  if (at > start->length || (start->length - at) / 4 < count) return 0;
  for (size_t i = 0; i < count; i++) {
    uint32_t instruction;
    memcpy(&instruction, start->bytes + at + i * 4, 4);
    if (!lk_op_reads_only(instruction & 0x7f)) return 0;
  }
  return 1;
}

// MARK: - The strings' metatable

static const char lk_string_metatable_key = 0;  // registry: the strings' metatable, opened
static const char lk_string_fields_key = 0;     // registry: a copy of its fields then

void lk_reading_functions_open(lua_State *L) {
  lua_pushliteral(L, "");
  if (!lua_getmetatable(L, -1)) lua_pushnil(L);
  int metatable = lua_gettop(L);
  lua_newtable(L);
  if (lua_type(L, metatable) == LUA_TTABLE) {
    lua_pushnil(L);
    while (lua_next(L, metatable)) {
      lua_pushvalue(L, -2);
      lua_insert(L, -2);
      lua_rawset(L, -4);
    }
  }
  lua_rawsetp(L, LUA_REGISTRYINDEX, &lk_string_fields_key);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &lk_string_metatable_key);
  lua_pop(L, 1);
}

// How many fields the table at `index` has.
static int lk_field_count(lua_State *L, int index) {
  int count = 0;
  lua_pushnil(L);
  while (lua_next(L, index)) {
    lua_pop(L, 1);
    count++;
  }
  return count;
}

// Whether the strings' metatable is the one opened, with the fields it had, and its __index
// (the string table) has no metatable: then every metamethod a string has is Lua's own.
static int lk_strings_as_opened(lua_State *L) {
  int top = lua_gettop(L);
  int as_opened = 0;
  lua_pushliteral(L, "");
  int metatable = lua_getmetatable(L, -1) ? lua_gettop(L) : 0;
  lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_string_metatable_key);
  lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_string_fields_key);
  int opened = top + 2 + (metatable != 0), fields = opened + 1;
  if (metatable == 0 || !lua_rawequal(L, metatable, opened)) goto done;
  int count = 0;
  lua_pushnil(L);
  while (lua_next(L, metatable)) {
    lua_pushvalue(L, -2);
    lua_rawget(L, fields);
    int same = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    if (!same) {
      lua_pop(L, 1);
      goto done;
    }
    count++;
  }
  if (count != lk_field_count(L, fields)) goto done;
  lua_getfield(L, metatable, "__index");  // raw: the metatable has none
  as_opened = lua_type(L, -1) == LUA_TTABLE && !lua_getmetatable(L, -1);
done:
  lua_settop(L, top);
  return as_opened;
}

// MARK: - Functions

// Whether each upvalue of the function at `index` holds nil, a boolean, a number or a string.
static int lk_upvalues_scalar(lua_State *L, int index) {
  for (int n = 1; lua_getupvalue(L, index, n) != NULL; n++) {
    int type = lua_type(L, -1);
    lua_pop(L, 1);
    if (type != LUA_TNIL && type != LUA_TBOOLEAN && type != LUA_TNUMBER && type != LUA_TSTRING) {
      return 0;
    }
  }
  return 1;
}

int lk_reads_only(lua_State *L, int index) {
  index = lua_absindex(L, index);
  if (lua_type(L, index) != LUA_TFUNCTION || lua_iscfunction(L, index)) return 0;
  if (!lk_upvalues_scalar(L, index) || !lk_strings_as_opened(L)) return 0;
  lk_dump_start start;
  start.length = 0;
  lua_pushvalue(L, index);
  lua_dump(L, lk_keep_dump, &start, 1);
  lua_pop(L, 1);
  return lk_dump_reads_only(&start);
}
