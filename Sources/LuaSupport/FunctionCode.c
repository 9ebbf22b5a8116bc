// What code a Lua function runs, as a number: a reload that changed the body of a coroutine an
// effect runs (`effect.run`) changes it, where the effect's description (a function, its kind,
// its id) stayed the same. A REPL that kept the states an earlier code made compares it to tell
// whether the code of now would run the same effects (see the header).
//
// What is hashed, from the function: its bytecode, stripped, without the lines it was defined
// at and without where its upvalues come from in the function around it (both move when code
// elsewhere in the file does: a local added above it); then each upvalue's value: a Lua
// function the same way, a C function by its address, numbers, strings and booleans as they
// are. A table counts by its type alone, and the globals (`_ENV`) not at all: what a table or
// the globals hold is data as much as code (a module's counters, `package.loaded`, whence every
// module and the feature itself, whose every change a new action makes), and a check that
// walked them refused a reload of the same file whenever a coroutine used a global (an
// attacker's finding). So a helper reached through a table, a module or a global is not
// compared (docs/sessions.md says so). Each function and long string is hashed once, a second
// meeting counting its hash again (a function met while it is hashed, a cycle, as a mark); the
// walk is bounded (LK_CODE_WORK things, LK_CODE_DUMPED bytes), past which it counts what it did
// not look into by a mark alone.
//
// FNV-1a over the bytes. Nothing here can raise: lua_dump with a writer into malloc'd memory,
// lua_getupvalue, lua_next over keys it was given, reads of values by their type (no
// lua_tolstring of a number, which would allocate), lua_checkstack, which says when there is no
// room.
#include "LuaState.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum {
  LK_CODE_DEPTH = 64,          // levels of functions held as upvalues looked into
  LK_CODE_WORK = 1 << 16,      // functions and long strings looked at in one walk
  LK_CODE_DUMPED = 2 << 20,    // bytes of bytecode and long strings hashed in one walk
};

// The functions and long strings met so far, by address, with their hashes (0 while still
// being hashed): an open-addressed set, malloc'd.
typedef struct {
  const void **keys;
  uint64_t *hashes;
  size_t capacity, count;
} lk_code_seen_set;

typedef struct {
  uint64_t hash;  // the hash being made: of the value being walked now
  lk_code_seen_set seen;
  size_t work, dumped;
  int out_of_memory;
} lk_code_hash;

enum { LK_FNV_START = 0xcbf29ce484222325ULL };

static void lk_code_mix(lk_code_hash *code, const void *bytes, size_t size) {
  const unsigned char *byte = bytes;
  for (size_t i = 0; i < size; i++) {
    code->hash ^= byte[i];
    code->hash *= 0x100000001b3ULL;
  }
}

static void lk_code_mix_tag(lk_code_hash *code, char tag) { lk_code_mix(code, &tag, 1); }

// The slot of `pointer` in the set: its hash (0 while it is walked), and whether it is new,
// which it then notes. NULL when the set cannot grow.
static uint64_t *lk_code_seen(lk_code_hash *code, const void *pointer, int *is_new) {
  lk_code_seen_set *set = &code->seen;
  if (set->count * 2 >= set->capacity) {
    size_t capacity = set->capacity ? set->capacity * 2 : 64;
    const void **keys = calloc(capacity, sizeof *keys);
    uint64_t *hashes = calloc(capacity, sizeof *hashes);
    if (keys == NULL || hashes == NULL) {
      free(keys);
      free(hashes);
      code->out_of_memory = 1;
      return NULL;
    }
    for (size_t i = 0; i < set->capacity; i++) {
      if (set->keys[i] == NULL) continue;
      size_t at = ((uintptr_t)set->keys[i] >> 4) & (capacity - 1);
      while (keys[at] != NULL) at = (at + 1) & (capacity - 1);
      keys[at] = set->keys[i];
      hashes[at] = set->hashes[i];
    }
    free(set->keys);
    free(set->hashes);
    set->keys = keys;
    set->hashes = hashes;
    set->capacity = capacity;
  }
  size_t at = ((uintptr_t)pointer >> 4) & (set->capacity - 1);
  while (set->keys[at] != NULL) {
    if (set->keys[at] == pointer) {
      *is_new = 0;
      return &set->hashes[at];
    }
    at = (at + 1) & (set->capacity - 1);
  }
  set->keys[at] = pointer;
  set->hashes[at] = 0;
  set->count++;
  *is_new = 1;
  return &set->hashes[at];
}

// Whether the walk may look at one more thing; counts it.
static int lk_code_may_work(lk_code_hash *code) {
  if (code->out_of_memory || code->work >= LK_CODE_WORK) return 0;
  code->work++;
  return 1;
}

// MARK: - The bytecode, without its lines

// A function's dump, whole, up to LK_DUMP_MOST bytes (a longer one is cut, and hashed as cut).
enum { LK_DUMP_MOST = 1 << 20 };

typedef struct {
  unsigned char *bytes;
  size_t length, capacity;
  int cut;
} lk_dump_buffer;

// lua_dump's writer: the pieces, one after another (malloc'd: not the VM's memory).
static int lk_code_writer(lua_State *L, const void *piece, size_t size, void *data) {
  (void)L;
  lk_dump_buffer *dump = data;
  if (size > LK_DUMP_MOST - dump->length) {
    dump->cut = 1;
    return 1;
  }
  if (dump->length + size > dump->capacity) {
    size_t capacity = dump->capacity ? dump->capacity : 512;
    while (capacity < dump->length + size) capacity *= 2;
    unsigned char *grown = realloc(dump->bytes, capacity);
    if (grown == NULL) {
      dump->cut = 1;
      return 1;
    }
    dump->bytes = grown;
    dump->capacity = capacity;
  }
  memcpy(dump->bytes + dump->length, piece, size);
  dump->length += size;
  return 0;
}

// A walk through a dump as ldump.c (Lua 5.4) writes it, hashing every byte but the lines each
// function was defined at (written even when stripped): `mixed` is how far it has hashed.
typedef struct {
  const lk_dump_buffer *dump;
  size_t at, mixed;
  lk_code_hash *code;
} lk_dump_walk;

static int lk_walk_skip(lk_dump_walk *walk, size_t count) {
  if (count > walk->dump->length - walk->at) return 0;
  walk->at += count;
  return 1;
}

// A size as ldump.c writes it: 7 bits a byte, most significant first, the last marked 0x80.
static int lk_walk_size(lk_dump_walk *walk, size_t *size) {
  size_t value = 0;
  for (int bytes = 0; walk->at < walk->dump->length && bytes < 10; bytes++) {
    unsigned char byte = walk->dump->bytes[walk->at++];
    if (value > (SIZE_MAX >> 7)) return 0;
    value = (value << 7) | (byte & 0x7f);
    if (byte & 0x80) {
      *size = value;
      return 1;
    }
  }
  return 0;
}

// A string: its size plus one (0 for none), then its bytes.
static int lk_walk_string(lk_dump_walk *walk) {
  size_t size;
  return lk_walk_size(walk, &size) && (size == 0 || lk_walk_skip(walk, size - 1));
}

static void lk_walk_mix_to_here(lk_dump_walk *walk) {
  lk_code_mix(walk->code, walk->dump->bytes + walk->mixed, walk->at - walk->mixed);
  walk->mixed = walk->at;
}

static int lk_walk_function(lk_dump_walk *walk, int depth) {
  size_t count, ignored;
  if (depth > 250 || !lk_walk_string(walk)) return 0;  // the source (none: stripped)
  lk_walk_mix_to_here(walk);
  if (!lk_walk_size(walk, &ignored) || !lk_walk_size(walk, &ignored)) return 0;  // lines
  walk->mixed = walk->at;
  if (!lk_walk_skip(walk, 3)) return 0;  // parameters, whether vararg, stack size
  if (!lk_walk_size(walk, &count) || count > SIZE_MAX / 4 || !lk_walk_skip(walk, count * 4)) {
    return 0;  // the instructions
  }
  if (!lk_walk_size(walk, &count)) return 0;  // the constants, each a tag and its value
  for (size_t i = 0; i < count; i++) {
    if (walk->at >= walk->dump->length) return 0;
    unsigned char tag = walk->dump->bytes[walk->at++];
    switch (tag) {
      case 0: case 1: case 17: break;  // nil, false, true
      case 3: case 19: if (!lk_walk_skip(walk, 8)) return 0; break;  // an integer, a float
      case 4: case 20: if (!lk_walk_string(walk)) return 0; break;  // a short, a long string
      default: return 0;
    }
  }
  // The upvalues: in the enclosing function's stack or not, where, and their kind. The
  // function's own say where in the function around it they come from, which moves when code
  // there does: left out (their values are hashed instead). Those of the functions it makes
  // point into its own code, and count.
  if (!lk_walk_size(walk, &count) || count > SIZE_MAX / 3) return 0;
  if (depth == 0) lk_walk_mix_to_here(walk);
  if (!lk_walk_skip(walk, count * 3)) return 0;
  if (depth == 0) walk->mixed = walk->at;
  if (!lk_walk_size(walk, &count)) return 0;  // the functions it makes
  for (size_t i = 0; i < count; i++) {
    if (!lk_walk_function(walk, depth + 1)) return 0;
  }
  // Debug information: none when stripped, walked all the same.
  if (!lk_walk_size(walk, &count) || !lk_walk_skip(walk, count)) return 0;  // line steps
  if (!lk_walk_size(walk, &count)) return 0;  // absolute lines
  for (size_t i = 0; i < count; i++) {
    if (!lk_walk_size(walk, &ignored) || !lk_walk_size(walk, &ignored)) return 0;
  }
  if (!lk_walk_size(walk, &count)) return 0;  // locals
  for (size_t i = 0; i < count; i++) {
    if (!lk_walk_string(walk) || !lk_walk_size(walk, &ignored)) return 0;
    if (!lk_walk_size(walk, &ignored)) return 0;
  }
  if (!lk_walk_size(walk, &count)) return 0;  // upvalues' names
  for (size_t i = 0; i < count; i++) {
    if (!lk_walk_string(walk)) return 0;
  }
  return 1;
}

// The dump into the hash, the lines left out; a dump cut, or not of the form the walk knows,
// whole (a line moved then counts as a change: a difference said where there is none, never
// one missed).
static void lk_code_mix_dump(lk_code_hash *code, const lk_dump_buffer *dump) {
  enum { LK_HEADER = 31 };  // signature, versions, sizes, a check integer and float
  uint64_t start = code->hash;
  lk_dump_walk walk = {dump, LK_HEADER + 1, 0, code};  // past the count of upvalues
  if (!dump->cut && dump->length > LK_HEADER && lk_walk_function(&walk, 0) &&
      walk.at == dump->length) {
    lk_walk_mix_to_here(&walk);
    return;
  }
  code->hash = start;
  lk_code_mix_tag(code, dump->cut ? 'X' : 'W');
  lk_code_mix(code, dump->bytes, dump->length);
}

static void lk_code_mix_value(lua_State *L, lk_code_hash *code, int index, int depth);

static void lk_code_walk_function(lua_State *L, lk_code_hash *code, int index, int depth);

// A function or a long string: hashed the first time it is met, its hash mixed again at each
// meeting after; a function met while it is hashed (a cycle), or past the bounds, as a mark.
static void lk_code_mix_reference(lua_State *L, lk_code_hash *code, int index, int depth) {
  if (depth >= LK_CODE_DEPTH || !lk_code_may_work(code) || !lua_checkstack(L, 4)) {
    return lk_code_mix_tag(code, '+');  // not looked into
  }
  int is_new;
  uint64_t *slot = lk_code_seen(code, lua_topointer(L, index), &is_new);
  if (slot == NULL) return lk_code_mix_tag(code, '+');
  if (!is_new) {
    if (*slot == 0) return lk_code_mix_tag(code, 'R');  // a cycle
    return lk_code_mix(code, slot, sizeof *slot);
  }
  uint64_t outer = code->hash;
  code->hash = LK_FNV_START;
  if (lua_type(L, index) == LUA_TFUNCTION) {
    lk_code_walk_function(L, code, index, depth);
  } else {  // a long string: its bytes, within the bound
    size_t length;
    const char *bytes = lua_tolstring(L, index, &length);
    lk_code_mix(code, &length, sizeof length);
    if (length <= LK_CODE_DUMPED - code->dumped) {
      code->dumped += length;
      lk_code_mix(code, bytes, length);
    } else {
      lk_code_mix_tag(code, '+');
    }
  }
  uint64_t hash = code->hash ? code->hash : 1;
  code->hash = outer;
  // The slot may have moved (the set grew during the walk): found again.
  uint64_t *done = lk_code_seen(code, lua_topointer(L, index), &is_new);
  if (done != NULL) *done = hash;
  lk_code_mix(code, &hash, sizeof hash);
}

// The upvalues of the function at `index`, in their order; `_ENV` by its place alone.
static void lk_code_mix_upvalues(lua_State *L, lk_code_hash *code, int index, int depth) {
  for (int n = 1;; n++) {
    const char *name = lua_getupvalue(L, index, n);
    if (name == NULL) break;
    int value = lua_gettop(L);
    if (strcmp(name, "_ENV") == 0) {
      lk_code_mix_tag(code, 'E');
    } else {
      // A table (a userdata, a thread) counts by its type: its name says which it is, so a
      // body that reads `action` where it read `state` differs (an attacker's finding; the
      // descriptors, left out, said it). Renaming such a local is then a change too.
      int type = lua_type(L, value);
      if (type == LUA_TTABLE || type == LUA_TUSERDATA || type == LUA_TTHREAD) {
        lk_code_mix(code, name, strlen(name));
      }
      lk_code_mix_value(L, code, value, depth + 1);
    }
    lua_settop(L, value - 1);
  }
}

static void lk_code_walk_function(lua_State *L, lk_code_hash *code, int index, int depth) {
  if (lua_iscfunction(L, index)) {
    // By its address alone: its upvalues are the host's (`require` holds `package`, and
    // through it every module and the globals, whatever data a feature keeps there).
    lua_CFunction function = lua_tocfunction(L, index);
    lk_code_mix_tag(code, 'C');
    lk_code_mix(code, &function, sizeof function);
    return;
  }
  lk_code_mix_tag(code, 'F');
  lk_dump_buffer dump = {NULL, 0, 0, 0};
  if (code->dumped < LK_CODE_DUMPED) {
    lua_pushvalue(L, index);
    lua_dump(L, lk_code_writer, &dump, 1);
    lua_pop(L, 1);
    code->dumped += dump.length;
  } else {
    dump.cut = 1;
  }
  lk_code_mix_dump(code, &dump);
  free(dump.bytes);
  lk_code_mix_upvalues(L, code, index, depth);
}

static void lk_code_mix_value(lua_State *L, lk_code_hash *code, int index, int depth) {
  int type = lua_type(L, index);
  lk_code_mix_tag(code, (char)('0' + type));
  switch (type) {
    case LUA_TNUMBER:
      if (lua_isinteger(L, index)) {
        lua_Integer integer = lua_tointeger(L, index);
        lk_code_mix_tag(code, 'i');
        lk_code_mix(code, &integer, sizeof integer);
      } else {
        lua_Number number = lua_tonumber(L, index);
        lk_code_mix(code, &number, sizeof number);
      }
      break;
    case LUA_TSTRING: {
      size_t length;
      const char *bytes = lua_tolstring(L, index, &length);
      if (length > 64) return lk_code_mix_reference(L, code, index, depth);  // hashed once
      lk_code_mix(code, &length, sizeof length);
      lk_code_mix(code, bytes, length);
      break;
    }
    case LUA_TBOOLEAN: lk_code_mix_tag(code, lua_toboolean(L, index) ? 't' : 'f'); break;
    case LUA_TFUNCTION: lk_code_mix_reference(L, code, index, depth); break;
    default: break;  // nil, a table, a userdata, a thread: the type alone
  }
}

uint64_t lk_function_code_hash(lua_State *L, int index) {
  index = lua_absindex(L, index);
  if (lua_type(L, index) != LUA_TFUNCTION) return 0;
  lk_code_hash code = {.hash = LK_FNV_START};
  int top = lua_gettop(L);
  lk_code_mix_value(L, &code, index, 0);
  lua_settop(L, top);
  free(code.seen.keys);
  free(code.seen.hashes);
  return code.hash == 0 ? 1 : code.hash;
}
