// Lua patterns (string.find, match, gmatch, gsub) with every step counted against the budget.
//
// Lua's own matcher backtracks without limit: `("a"):rep(40):find(("a?"):rep(40) ..
// ("a"):rep(40))` takes 2^40 steps inside one C call, where no instruction hook can stop it.
// This matcher follows the manual's definition of patterns (§6.4.1) and charges its steps to
// the call's budget as it goes, so a pattern that explodes stops with the instruction limit
// error like a loop would. It compiles a pattern into items first (a 256-bit set per character
// class), then backtracks over the items.
//
// Errors are raised when matching reaches the faulty part of a pattern, as Lua's matcher
// does: `("abc"):find("x[")` is nil, not an error, because no 'x' lets matching get that far.
#include "LuaSupportState.h"

#include <ctype.h>
#include <string.h>

enum {
  LK_MAX_CAPTURES = 32,     // as LUA_MAXCAPTURES
  LK_MAX_DEPTH = 200,       // nested backtracking, as Lua's matcher allows
  LK_STEPS_PER_CHARGE = 1024,
  LK_STEPS_PER_INSTRUCTION = 4,  // a step (one byte tested) is cheaper than an instruction
  LK_LOCAL_ITEMS = 32,      // a pattern this short compiles into the C stack
};

typedef enum {
  LK_ITEM_CLASS,     // one character of a set, with a quantifier
  LK_ITEM_OPEN,      // (
  LK_ITEM_POSITION,  // ()
  LK_ITEM_CLOSE,     // )
  LK_ITEM_BALANCE,   // %bxy
  LK_ITEM_FRONTIER,  // %f[set]
  LK_ITEM_BACKREF,   // %1 ... %9
  LK_ITEM_END,       // $ as the last character
  LK_ITEM_ERROR,     // a malformed rest: raised when matching reaches it
} lk_item_kind;

typedef struct {
  unsigned char kind;
  unsigned char quantifier;  // 0 (exactly one), '*', '+', '-' or '?'
  unsigned char first, second;
  const char *error;
  unsigned char set[32];
} lk_item;

enum { LK_CAPTURE_OPEN = -1, LK_CAPTURE_POSITION = -2 };

typedef struct {
  lua_State *L;
  const unsigned char *subject, *end;
  const lk_item *items;
  size_t count;
  int level;
  struct {
    const unsigned char *start;
    ptrdiff_t length;
  } captures[LK_MAX_CAPTURES];
  int depth;
  size_t steps;  // not charged yet
} lk_matcher;

// MARK: - Compiling

static void lk_set_add(unsigned char *set, int c) { set[c >> 3] |= (unsigned char)(1 << (c & 7)); }
static int lk_set_has(const unsigned char *set, int c) { return set[c >> 3] & (1 << (c & 7)); }

static void lk_set_fill(unsigned char *set, int (*predicate)(int), int complement) {
  for (int c = 0; c < 256; c++) {
    if ((predicate(c) != 0) != complement) lk_set_add(set, c);
  }
}

// Adds `%letter` to `set`: a class, its complement (upper case), or the character itself.
static int lk_is_zero(int c) { return c == 0; }

static void lk_set_add_escape(unsigned char *set, int letter) {
  int (*predicate)(int) = NULL;
  switch (tolower(letter)) {
    case 'a': predicate = isalpha; break;
    case 'c': predicate = iscntrl; break;
    case 'd': predicate = isdigit; break;
    case 'g': predicate = isgraph; break;
    case 'l': predicate = islower; break;
    case 'p': predicate = ispunct; break;
    case 's': predicate = isspace; break;
    case 'u': predicate = isupper; break;
    case 'w': predicate = isalnum; break;
    case 'x': predicate = isxdigit; break;
    case 'z': predicate = lk_is_zero; break;  // deprecated in 5.4, still Lua's
    default: lk_set_add(set, letter); return;
  }
  lk_set_fill(set, predicate, isupper(letter) != 0);
}

// Reads the set whose '[' is at `p`; returns the position after its ']', or NULL when there is
// none. The first character after '[' (or "[^") belongs to the set even when it is ']'.
static const char *lk_compile_set(unsigned char *set, const char *p, const char *end) {
  p++;  // '['
  int complement = p < end && *p == '^';
  if (complement) p++;
  const char *close = p;
  do {  // the closing ']', skipping escapes
    if (close >= end) return NULL;
    if (*close++ == '%') {
      if (close >= end) return NULL;
      close++;
    }
  } while (close >= end || *close != ']');
  unsigned char members[32] = {0};
  while (p < close) {
    unsigned char c = (unsigned char)*p;
    if (c == '%') {
      lk_set_add_escape(members, (unsigned char)p[1]);
      p += 2;
    } else if (p + 2 < close && p[1] == '-') {
      for (int member = c; member <= (unsigned char)p[2]; member++) lk_set_add(members, member);
      p += 3;
    } else {
      lk_set_add(members, c);
      p += 1;
    }
  }
  for (int i = 0; i < 32; i++) set[i] = complement ? (unsigned char)~members[i] : members[i];
  return close + 1;
}

// Compiles the pattern into `items` (room for length + 1); returns how many.
static size_t lk_compile(lk_item *items, const char *p, const char *end) {
  size_t count = 0;
  while (p < end) {
    lk_item *item = &items[count++];
    memset(item, 0, sizeof *item);
    unsigned char c = (unsigned char)*p;
    if (c == '(') {
      item->kind = p + 1 < end && p[1] == ')' ? LK_ITEM_POSITION : LK_ITEM_OPEN;
      p += item->kind == LK_ITEM_POSITION ? 2 : 1;
      continue;
    }
    if (c == ')') {
      item->kind = LK_ITEM_CLOSE;
      p++;
      continue;
    }
    if (c == '$' && p + 1 == end) {
      item->kind = LK_ITEM_END;
      p++;
      continue;
    }
    if (c == '%' && p + 1 < end && (p[1] == 'b' || p[1] == 'f' || isdigit((unsigned char)p[1]))) {
      if (p[1] == 'b') {
        if (end - p < 4) {
          item->kind = LK_ITEM_ERROR;
          item->error = "malformed pattern (missing arguments to '%b')";
          return count;
        }
        item->kind = LK_ITEM_BALANCE;
        item->first = (unsigned char)p[2];
        item->second = (unsigned char)p[3];
        p += 4;
      } else if (p[1] == 'f') {
        p += 2;
        const char *after = p < end && *p == '[' ? lk_compile_set(item->set, p, end) : NULL;
        if (after == NULL) {
          item->kind = LK_ITEM_ERROR;
          item->error = p < end && *p == '[' ? "malformed pattern (missing ']')"
                                             : "missing '[' after '%f' in pattern";
          return count;
        }
        item->kind = LK_ITEM_FRONTIER;
        p = after;
      } else {
        item->kind = LK_ITEM_BACKREF;
        item->first = (unsigned char)(p[1] - '1');  // '0' gives 255: never a capture
        p += 2;
      }
      continue;
    }
    // A single character class, then perhaps a quantifier.
    item->kind = LK_ITEM_CLASS;
    if (c == '.') {
      memset(item->set, 0xff, sizeof item->set);
      p++;
    } else if (c == '%') {
      if (p + 1 >= end) {
        item->kind = LK_ITEM_ERROR;
        item->error = "malformed pattern (ends with '%')";
        return count;
      }
      lk_set_add_escape(item->set, (unsigned char)p[1]);
      p += 2;
    } else if (c == '[') {
      const char *after = lk_compile_set(item->set, p, end);
      if (after == NULL) {
        item->kind = LK_ITEM_ERROR;
        item->error = "malformed pattern (missing ']')";
        return count;
      }
      p = after;
    } else {
      lk_set_add(item->set, c);
      p++;
    }
    if (p < end && (*p == '*' || *p == '+' || *p == '-' || *p == '?')) {
      item->quantifier = (unsigned char)*p++;
    }
  }
  return count;
}

// MARK: - Matching

static void lk_step(lk_matcher *m, size_t steps) {
  m->steps += steps;
  if (m->steps < LK_STEPS_PER_CHARGE) return;
  lk_charge(m->L, (lua_Integer)(m->steps / LK_STEPS_PER_INSTRUCTION));
  m->steps %= LK_STEPS_PER_INSTRUCTION;
}

static const unsigned char *lk_match(lk_matcher *m, const unsigned char *s, size_t index);

// Matches the rest from `index` one level deeper.
static const unsigned char *lk_match_deeper(lk_matcher *m, const unsigned char *s, size_t index) {
  if (m->depth >= LK_MAX_DEPTH) luaL_error(m->L, "pattern too complex");
  m->depth++;
  const unsigned char *result = lk_match(m, s, index);
  m->depth--;
  return result;
}

static const unsigned char *lk_match(lk_matcher *m, const unsigned char *s, size_t index) {
  for (;;) {
    lk_step(m, 1);
    if (index == m->count) return s;
    const lk_item *item = &m->items[index];
    switch (item->kind) {
      case LK_ITEM_CLASS: {
        switch (item->quantifier) {
          case 0:
            if (s >= m->end || !lk_set_has(item->set, *s)) return NULL;
            s++;
            index++;
            continue;
          case '?':
            if (s < m->end && lk_set_has(item->set, *s)) {
              const unsigned char *result = lk_match_deeper(m, s + 1, index + 1);
              if (result != NULL) return result;
            }
            index++;
            continue;
          case '-':
            for (;;) {
              const unsigned char *result = lk_match_deeper(m, s, index + 1);
              if (result != NULL) return result;
              if (s >= m->end || !lk_set_has(item->set, *s)) return NULL;
              lk_step(m, 1);
              s++;
            }
          default: {  // '*' and '+': the longest run first, then shorter ones
            ptrdiff_t run = 0;
            while (s + run < m->end && lk_set_has(item->set, s[run])) run++;
            lk_step(m, (size_t)run);
            ptrdiff_t least = item->quantifier == '+' ? 1 : 0;
            for (; run >= least; run--) {
              const unsigned char *result = lk_match_deeper(m, s + run, index + 1);
              if (result != NULL) return result;
            }
            return NULL;
          }
        }
      }
      case LK_ITEM_OPEN:
      case LK_ITEM_POSITION: {
        if (m->level >= LK_MAX_CAPTURES) luaL_error(m->L, "too many captures");
        int level = m->level++;
        m->captures[level].start = s;
        m->captures[level].length =
            item->kind == LK_ITEM_OPEN ? LK_CAPTURE_OPEN : LK_CAPTURE_POSITION;
        const unsigned char *result = lk_match_deeper(m, s, index + 1);
        if (result == NULL) m->level--;
        return result;
      }
      case LK_ITEM_CLOSE: {
        int level = m->level - 1;
        while (level >= 0 && m->captures[level].length != LK_CAPTURE_OPEN) level--;
        if (level < 0) luaL_error(m->L, "invalid pattern capture");
        m->captures[level].length = s - m->captures[level].start;
        const unsigned char *result = lk_match_deeper(m, s, index + 1);
        if (result == NULL) m->captures[level].length = LK_CAPTURE_OPEN;
        return result;
      }
      case LK_ITEM_BALANCE: {
        if (s >= m->end || *s != item->first) return NULL;
        int open = 1;
        const unsigned char *p = s + 1;
        for (; p < m->end; p++) {
          if (*p == item->second) {
            if (--open == 0) break;
          } else if (*p == item->first) {
            open++;
          }
        }
        lk_step(m, (size_t)(p - s));
        if (p >= m->end) return NULL;
        s = p + 1;
        index++;
        continue;
      }
      case LK_ITEM_FRONTIER: {
        int previous = s == m->subject ? 0 : s[-1];
        int current = s < m->end ? *s : 0;
        if (lk_set_has(item->set, previous) || !lk_set_has(item->set, current)) return NULL;
        index++;
        continue;
      }
      case LK_ITEM_BACKREF: {
        int level = item->first;
        if (level >= m->level || m->captures[level].length == LK_CAPTURE_OPEN ||
            item->first == 255) {
          luaL_error(m->L, "invalid capture index %%%d", item->first == 255 ? 0 : level + 1);
        }
        // A position capture has no text: a reference to it never matches, as in Lua.
        if (m->captures[level].length == LK_CAPTURE_POSITION) return NULL;
        size_t length = (size_t)m->captures[level].length;
        if ((size_t)(m->end - s) < length || memcmp(m->captures[level].start, s, length) != 0) {
          return NULL;
        }
        lk_step(m, length);
        s += length;
        index++;
        continue;
      }
      case LK_ITEM_END:
        return s == m->end ? s : NULL;
      default:
        luaL_error(m->L, "%s", item->error);
        return NULL;
    }
  }
}

// MARK: - Captures

// Pushes capture `i` of a match from `s` to `e`: with no captures, capture 0 is the match.
static void lk_push_capture(lk_matcher *m, int i, const unsigned char *s, const unsigned char *e) {
  if (i >= m->level) {
    if (i != 0) luaL_error(m->L, "invalid capture index %%%d", i + 1);
    lua_pushlstring(m->L, (const char *)s, (size_t)(e - s));
    return;
  }
  ptrdiff_t length = m->captures[i].length;
  if (length == LK_CAPTURE_OPEN) luaL_error(m->L, "unfinished capture");
  if (length == LK_CAPTURE_POSITION) {
    lua_pushinteger(m->L, (lua_Integer)(m->captures[i].start - m->subject) + 1);
  } else {
    lua_pushlstring(m->L, (const char *)m->captures[i].start, (size_t)length);
  }
}

// Pushes every capture (the whole match when there are none and `s` is given); returns how many.
static int lk_push_captures(lk_matcher *m, const unsigned char *s, const unsigned char *e) {
  int count = m->level == 0 && s != NULL ? 1 : m->level;
  luaL_checkstack(m->L, count, "too many captures");
  for (int i = 0; i < count; i++) lk_push_capture(m, i, s, e);
  return count;
}

// MARK: - A compiled pattern

typedef struct {
  lk_item local[LK_LOCAL_ITEMS + 1];
  lk_item *items;
  size_t count;
} lk_pattern;

// Compiles `p`: short patterns in place, long ones into a userdata pushed on the stack (the
// collector frees it, whatever error unwinds the call).
static void lk_pattern_compile(lua_State *L, lk_pattern *pattern, const char *p, size_t length) {
  pattern->items = pattern->local;
  if (length > LK_LOCAL_ITEMS) {
    lk_reserve_memory(L, (length + 1) * sizeof(lk_item));
    pattern->items = lua_newuserdatauv(L, (length + 1) * sizeof(lk_item), 0);
  }
  lk_charge(L, (lua_Integer)(length / LK_STEPS_PER_INSTRUCTION));
  pattern->count = lk_compile(pattern->items, p, p + length);
}

static void lk_matcher_start(
    lk_matcher *m, lua_State *L, const char *subject, size_t length, const lk_pattern *pattern) {
  m->L = L;
  m->subject = (const unsigned char *)subject;
  m->end = m->subject + length;
  m->items = pattern->items;
  m->count = pattern->count;
  m->level = 0;
  m->depth = 0;
  m->steps = 0;
}

// Lua's rule for a starting position: negative counts from the end, 0 and below the start is 1.
static size_t lk_start_position(lua_Integer position, size_t length) {
  if (position > 0) return (size_t)position;
  if (position == 0) return 1;
  if (position < -(lua_Integer)length) return 1;
  return length + (size_t)position + 1;
}

static int lk_has_specials(const char *p, size_t length) {
  for (size_t i = 0; i < length; i++) {
    if (strchr("^$*+?.([%-", p[i]) != NULL && p[i] != '\0') return 1;
  }
  return 0;
}

// The first occurrence of `needle` in `haystack`, or NULL.
static const char *lk_find_plain(
    const char *haystack, size_t length, const char *needle, size_t size) {
  if (size == 0) return haystack;
  if (size > length) return NULL;
  const char *last = haystack + (length - size);
  for (const char *p = haystack; p <= last; p++) {
    p = memchr(p, needle[0], (size_t)(last - p) + 1);
    if (p == NULL) return NULL;
    if (memcmp(p + 1, needle + 1, size - 1) == 0) return p;
  }
  return NULL;
}

// MARK: - The library

static int lk_find_or_match(lua_State *L, int find) {
  size_t length, size;
  const char *s = luaL_checklstring(L, 1, &length);
  const char *p = luaL_checklstring(L, 2, &size);
  size_t start = lk_start_position(luaL_optinteger(L, 3, 1), length) - 1;
  if (start > length) {
    luaL_pushfail(L);
    return 1;
  }
  if (find && (lua_toboolean(L, 4) || !lk_has_specials(p, size))) {
    lk_charge(L, (lua_Integer)((length - start) / 16));
    const char *found = lk_find_plain(s + start, length - start, p, size);
    if (found == NULL) {
      luaL_pushfail(L);
      return 1;
    }
    lua_pushinteger(L, (lua_Integer)(found - s) + 1);
    lua_pushinteger(L, (lua_Integer)(found - s + size));
    return 2;
  }
  int anchor = size > 0 && *p == '^';
  lk_pattern pattern;
  lk_pattern_compile(L, &pattern, p + anchor, size - anchor);
  lk_matcher m;
  lk_matcher_start(&m, L, s, length, &pattern);
  const unsigned char *at = m.subject + start;
  do {
    m.level = 0;
    const unsigned char *e = lk_match(&m, at, 0);
    if (e != NULL) {
      if (!find) return lk_push_captures(&m, at, e);
      lua_pushinteger(L, (lua_Integer)(at - m.subject) + 1);
      lua_pushinteger(L, (lua_Integer)(e - m.subject));
      return lk_push_captures(&m, NULL, NULL) + 2;
    }
  } while (at++ < m.end && !anchor);
  luaL_pushfail(L);
  return 1;
}

static int lk_string_find(lua_State *L) { return lk_find_or_match(L, 1); }
static int lk_string_match(lua_State *L) { return lk_find_or_match(L, 0); }

// The state of a gmatch iteration: upvalues are the subject, the pattern and this.
typedef struct {
  size_t position;   // where the next search starts
  size_t last_end;   // the end of the last match, or SIZE_MAX: an empty match there is skipped
} lk_gmatch_state;

static int lk_gmatch_next(lua_State *L) {
  size_t length, size;
  const char *s = lua_tolstring(L, lua_upvalueindex(1), &length);
  const char *p = lua_tolstring(L, lua_upvalueindex(2), &size);
  lk_gmatch_state *state = lua_touserdata(L, lua_upvalueindex(3));
  lk_pattern pattern;
  lk_pattern_compile(L, &pattern, p, size);
  lk_matcher m;
  lk_matcher_start(&m, L, s, length, &pattern);
  for (size_t at = state->position; at <= length; at++) {
    m.level = 0;
    const unsigned char *e = lk_match(&m, m.subject + at, 0);
    if (e != NULL && (size_t)(e - m.subject) != state->last_end) {
      state->position = state->last_end = (size_t)(e - m.subject);
      return lk_push_captures(&m, m.subject + at, e);
    }
  }
  state->position = length + 1;
  return 0;
}

static int lk_string_gmatch(lua_State *L) {
  size_t length;
  luaL_checklstring(L, 1, &length);
  luaL_checkstring(L, 2);
  size_t start = lk_start_position(luaL_optinteger(L, 3, 1), length) - 1;
  lua_settop(L, 2);
  lk_gmatch_state *state = lua_newuserdatauv(L, sizeof *state, 0);
  state->position = start > length ? length + 1 : start;
  state->last_end = (size_t)-1;
  lua_pushcclosure(L, lk_gmatch_next, 3);
  return 1;
}

// Appends the replacement of one match to the buffer.
static void lk_add_replacement(
    lk_matcher *m, luaL_Buffer *buffer, const unsigned char *s, const unsigned char *e, int kind) {
  lua_State *L = m->L;
  if (kind == LUA_TSTRING || kind == LUA_TNUMBER) {
    size_t length;
    const char *r = lua_tolstring(L, 3, &length);
    for (size_t i = 0; i < length; i++) {
      if (r[i] != '%') {
        luaL_addchar(buffer, r[i]);
        continue;
      }
      i++;
      if (i < length && r[i] == '%') {
        luaL_addchar(buffer, '%');
      } else if (i < length && isdigit((unsigned char)r[i])) {
        if (r[i] == '0') {
          luaL_addlstring(buffer, (const char *)s, (size_t)(e - s));
        } else {
          lk_push_capture(m, r[i] - '1', s, e);
          luaL_tolstring(L, -1, NULL);
          lua_remove(L, -2);
          luaL_addvalue(buffer);
        }
      } else {
        luaL_error(L, "invalid use of '%%' in replacement string");
      }
    }
    return;
  }
  if (kind == LUA_TFUNCTION) {
    lua_pushvalue(L, 3);
    int count = lk_push_captures(m, s, e);
    lua_call(L, count, 1);
  } else {  // a table, indexed by the first capture
    lk_push_capture(m, 0, s, e);
    lua_gettable(L, 3);
  }
  if (!lua_toboolean(L, -1)) {  // nil or false: the match stays
    lua_pop(L, 1);
    luaL_addlstring(buffer, (const char *)s, (size_t)(e - s));
    return;
  }
  if (!lua_isstring(L, -1)) {
    luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
  }
  luaL_addvalue(buffer);
}

static int lk_string_gsub(lua_State *L) {
  size_t length, size;
  const char *s = luaL_checklstring(L, 1, &length);
  const char *p = luaL_checklstring(L, 2, &size);
  int kind = lua_type(L, 3);
  lua_Integer most = luaL_optinteger(L, 4, (lua_Integer)length + 1);
  luaL_argexpected(L, kind == LUA_TNUMBER || kind == LUA_TSTRING || kind == LUA_TFUNCTION ||
                   kind == LUA_TTABLE, 3, "string/function/table");
  lua_settop(L, 3);
  int anchor = size > 0 && *p == '^';
  lk_pattern pattern;
  lk_pattern_compile(L, &pattern, p + anchor, size - anchor);  // may push a userdata: 4
  lk_matcher m;
  lk_matcher_start(&m, L, s, length, &pattern);
  luaL_Buffer buffer;
  luaL_buffinit(L, &buffer);
  const unsigned char *at = m.subject, *last_end = NULL;
  lua_Integer count = 0;
  while (count < most) {
    m.level = 0;
    const unsigned char *e = lk_match(&m, at, 0);
    if (e != NULL && e != last_end) {
      count++;
      lk_add_replacement(&m, &buffer, at, e, kind);
      at = last_end = e;
    } else if (at < m.end) {
      luaL_addchar(&buffer, (char)*at++);
    } else {
      break;
    }
    if (anchor) break;
  }
  luaL_addlstring(&buffer, (const char *)at, (size_t)(m.end - at));
  luaL_pushresult(&buffer);
  lua_pushinteger(L, count);
  return 2;
}

// The library's own versions stay reachable to the host, for tests that compare the two.
static const char lk_original_patterns_key = 0;

void lk_push_original_pattern_functions(lua_State *L) {
  lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_original_patterns_key);
}

void lk_patterns_open(lua_State *L) {
  static const luaL_Reg functions[] = {
      {"find", lk_string_find}, {"match", lk_string_match}, {"gmatch", lk_string_gmatch},
      {"gsub", lk_string_gsub}, {NULL, NULL},
  };
  lua_getglobal(L, "string");
  lua_createtable(L, 0, 4);
  for (const luaL_Reg *function = functions; function->name != NULL; function++) {
    lua_getfield(L, -2, function->name);
    lua_setfield(L, -2, function->name);
  }
  lua_rawsetp(L, LUA_REGISTRYINDEX, &lk_original_patterns_key);
  luaL_setfuncs(L, functions, 0);
  lua_pop(L, 1);
}
