// Lua patterns (string.find, match, gmatch, gsub) with every step charged to the budget.
//
// Lua's own matcher backtracks without limit inside one C call, where no instruction hook can
// stop it: `("a"):rep(40):find(("a?"):rep(40) .. ("a"):rep(40))` takes 2^40 steps. This one is
// Lua 5.4.4's matcher done again, decision for decision: the same recursion (the same tail
// calls, so the same "pattern too complex" depth), the same bytes read (a Lua string ends with
// a '\0' that the matcher may read, as Lua's does), errors raised at the same point of matching
// with the same messages, and gsub handing back its subject when nothing was replaced. What it
// adds: each step (a byte tested, a recursion, a byte compared) is counted and charged to the
// call's budget as it goes, so a pattern that explodes stops with the instruction limit error
// as a loop would. The plain search (`find` with no specials, or `plain = true`) charges each
// comparison too: Lua's is O(n·m) at worst, and so is this one, so it is charged as such.
#include "LuaState.h"

#include <ctype.h>
#include <string.h>

enum {
  LK_MAX_CAPTURES = 32,   // LUA_MAXCAPTURES
  LK_MAX_CALLS = 200,     // nested `match` calls, as Lua's MAXCCALLS
  LK_STEPS_PER_CHARGE = 1024,
  LK_STEPS_PER_INSTRUCTION = 4,  // a step (one byte tested) is cheaper than an instruction
  LK_CAPTURE_UNFINISHED = -1,
  LK_CAPTURE_POSITION = -2,
};

static const char lk_escape = '%';
static const char *const lk_specials = "^$*+?.([%-";

typedef struct {
  const char *subject, *subject_end, *pattern_end;
  lua_State *L;
  int calls_left;  // `match` calls that may still nest
  int level;       // captures, finished or not
  struct {
    const char *start;
    ptrdiff_t length;  // or LK_CAPTURE_UNFINISHED / LK_CAPTURE_POSITION
  } captures[LK_MAX_CAPTURES];
  size_t steps;  // not charged yet
} lk_match_state;

// MARK: - Charging

static void lk_steps(lk_match_state *m, size_t steps) {
  m->steps += steps;
  if (m->steps < LK_STEPS_PER_CHARGE) return;
  lk_charge(m->L, (lua_Integer)(m->steps / LK_STEPS_PER_INSTRUCTION));
  m->steps %= LK_STEPS_PER_INSTRUCTION;
}

// MARK: - Classes

// Whether byte `c` is in class `%letter` (or is `letter` itself when it names no class).
static int lk_in_class(int c, int letter) {
  int in;
  switch (tolower(letter)) {
    case 'a': in = isalpha(c); break;
    case 'c': in = iscntrl(c); break;
    case 'd': in = isdigit(c); break;
    case 'g': in = isgraph(c); break;
    case 'l': in = islower(c); break;
    case 'p': in = ispunct(c); break;
    case 's': in = isspace(c); break;
    case 'u': in = isupper(c); break;
    case 'w': in = isalnum(c); break;
    case 'x': in = isxdigit(c); break;
    case 'z': in = c == 0; break;  // deprecated, still Lua's
    default: return letter == c;
  }
  return islower(letter) ? in : !in;
}

// Whether `c` is in the set that starts at `p` ('[') and whose ']' is at `last`.
static int lk_in_set(int c, const char *p, const char *last) {
  int wanted = 1;
  if (p[1] == '^') {
    wanted = 0;
    p++;
  }
  while (++p < last) {
    if (*p == lk_escape) {
      p++;
      if (lk_in_class(c, (unsigned char)*p)) return wanted;
    } else if (p[1] == '-' && p + 2 < last) {
      p += 2;
      if ((unsigned char)p[-2] <= c && c <= (unsigned char)*p) return wanted;
    } else if ((unsigned char)*p == c) {
      return wanted;
    }
  }
  return !wanted;
}

// The end of the single-character class that starts at `p`.
static const char *lk_class_end(lk_match_state *m, const char *p) {
  switch (*p++) {
    case '%':
      if (p == m->pattern_end) luaL_error(m->L, "malformed pattern (ends with '%%')");
      return p + 1;
    case '[':
      if (*p == '^') p++;
      do {  // the ']', skipping escapes (a ']' right after '[' or "[^" belongs to the set)
        if (p == m->pattern_end) luaL_error(m->L, "malformed pattern (missing ']')");
        if (*(p++) == lk_escape && p < m->pattern_end) p++;
      } while (*p != ']');
      return p + 1;
    default:
      return p;
  }
}

// Whether the subject byte at `s` matches the class from `p` to `end` (one step).
static int lk_single_match(lk_match_state *m, const char *s, const char *p, const char *end) {
  lk_steps(m, 1);
  if (s >= m->subject_end) return 0;
  int c = (unsigned char)*s;
  switch (*p) {
    case '.': return 1;
    case '%': return lk_in_class(c, (unsigned char)p[1]);
    case '[': return lk_in_set(c, p, end - 1);
    default: return (unsigned char)*p == c;
  }
}

// MARK: - Matching

static const char *lk_match(lk_match_state *m, const char *s, const char *p);

static const char *lk_match_balance(lk_match_state *m, const char *s, const char *p) {
  if (p >= m->pattern_end - 1) {
    luaL_error(m->L, "malformed pattern (missing arguments to '%%b')");
  }
  if (*s != *p) return NULL;
  int open = *p, close = p[1], depth = 1;
  const char *start = s;
  while (++s < m->subject_end) {
    if (*s == close) {
      if (--depth == 0) {
        lk_steps(m, (size_t)(s - start));
        return s + 1;
      }
    } else if (*s == open) {
      depth++;
    }
  }
  lk_steps(m, (size_t)(s - start));
  return NULL;
}

static const char *lk_max_expand(
    lk_match_state *m, const char *s, const char *p, const char *end) {
  ptrdiff_t count = 0;
  while (lk_single_match(m, s + count, p, end)) count++;
  for (; count >= 0; count--) {  // the most repetitions first
    const char *result = lk_match(m, s + count, end + 1);
    if (result != NULL) return result;
  }
  return NULL;
}

static const char *lk_min_expand(
    lk_match_state *m, const char *s, const char *p, const char *end) {
  for (;;) {
    const char *result = lk_match(m, s, end + 1);
    if (result != NULL) return result;
    if (!lk_single_match(m, s, p, end)) return NULL;
    s++;
  }
}

static const char *lk_start_capture(
    lk_match_state *m, const char *s, const char *p, ptrdiff_t kind) {
  int level = m->level;
  if (level >= LK_MAX_CAPTURES) luaL_error(m->L, "too many captures");
  m->captures[level].start = s;
  m->captures[level].length = kind;
  m->level = level + 1;
  const char *result = lk_match(m, s, p);
  if (result == NULL) m->level--;
  return result;
}

static const char *lk_end_capture(lk_match_state *m, const char *s, const char *p) {
  int level = m->level - 1;
  while (level >= 0 && m->captures[level].length != LK_CAPTURE_UNFINISHED) level--;
  if (level < 0) luaL_error(m->L, "invalid pattern capture");
  m->captures[level].length = s - m->captures[level].start;
  const char *result = lk_match(m, s, p);
  if (result == NULL) m->captures[level].length = LK_CAPTURE_UNFINISHED;
  return result;
}

// The capture `%digit` names, checked.
static int lk_capture_index(lk_match_state *m, int digit) {
  int level = digit - '1';
  if (level < 0 || level >= m->level || m->captures[level].length == LK_CAPTURE_UNFINISHED) {
    return luaL_error(m->L, "invalid capture index %%%d", level + 1);
  }
  return level;
}

static const char *lk_match_capture(lk_match_state *m, const char *s, int digit) {
  int level = lk_capture_index(m, digit);
  // A position capture's length is negative: as a size it is huge and never fits, as in Lua.
  size_t length = (size_t)m->captures[level].length;
  if ((size_t)(m->subject_end - s) >= length &&
      memcmp(m->captures[level].start, s, length) == 0) {
    lk_steps(m, length);
    return s + length;
  }
  return NULL;
}

// Matches the pattern from `p` against the subject from `s`: the end of the match, or NULL.
// Tail calls are loops (`goto next`), as in Lua, so that only real nesting counts against
// LK_MAX_CALLS.
static const char *lk_match(lk_match_state *m, const char *s, const char *p) {
  if (m->calls_left-- == 0) luaL_error(m->L, "pattern too complex");
next:
  lk_steps(m, 1);
  if (p != m->pattern_end) {
    switch (*p) {
      case '(':
        s = p[1] == ')' ? lk_start_capture(m, s, p + 2, LK_CAPTURE_POSITION)
                        : lk_start_capture(m, s, p + 1, LK_CAPTURE_UNFINISHED);
        break;
      case ')':
        s = lk_end_capture(m, s, p + 1);
        break;
      case '$':
        if (p + 1 != m->pattern_end) goto single;
        s = s == m->subject_end ? s : NULL;
        break;
      case '%':
        switch (p[1]) {
          case 'b':
            s = lk_match_balance(m, s, p + 2);
            if (s != NULL) {
              p += 4;
              goto next;
            }
            break;
          case 'f': {
            p += 2;
            if (*p != '[') luaL_error(m->L, "missing '[' after '%%f' in pattern");
            const char *end = lk_class_end(m, p);
            int previous = s == m->subject ? '\0' : (unsigned char)s[-1];
            if (!lk_in_set(previous, p, end - 1) && lk_in_set((unsigned char)*s, p, end - 1)) {
              p = end;
              goto next;
            }
            s = NULL;
            break;
          }
          case '0': case '1': case '2': case '3': case '4':
          case '5': case '6': case '7': case '8': case '9':
            s = lk_match_capture(m, s, (unsigned char)p[1]);
            if (s != NULL) {
              p += 2;
              goto next;
            }
            break;
          default:
            goto single;
        }
        break;
      default:
      single: {
        const char *end = lk_class_end(m, p);  // at the quantifier, if any
        if (!lk_single_match(m, s, p, end)) {
          if (*end == '*' || *end == '?' || *end == '-') {  // may match nothing
            p = end + 1;
            goto next;
          }
          s = NULL;
        } else {
          switch (*end) {
            case '?': {
              const char *result = lk_match(m, s + 1, end + 1);
              if (result != NULL) {
                s = result;
              } else {
                p = end + 1;
                goto next;
              }
              break;
            }
            case '+':
              s++;
              s = lk_max_expand(m, s, p, end);
              break;
            case '*':
              s = lk_max_expand(m, s, p, end);
              break;
            case '-':
              s = lk_min_expand(m, s, p, end);
              break;
            default:
              s++;
              p = end;
              goto next;
          }
        }
        break;
      }
    }
  }
  m->calls_left++;
  return s;
}

// MARK: - Captures

// Capture `i` of a match from `s` to `e`: its length, with its start in `*start`, or
// LK_CAPTURE_POSITION having pushed the position. With no captures, capture 0 is the match.
static ptrdiff_t lk_capture(
    lk_match_state *m, int i, const char *s, const char *e, const char **start) {
  if (i >= m->level) {
    if (i != 0) luaL_error(m->L, "invalid capture index %%%d", i + 1);
    *start = s;
    return e - s;
  }
  ptrdiff_t length = m->captures[i].length;
  *start = m->captures[i].start;
  if (length == LK_CAPTURE_UNFINISHED) luaL_error(m->L, "unfinished capture");
  if (length == LK_CAPTURE_POSITION) {
    lua_pushinteger(m->L, (m->captures[i].start - m->subject) + 1);
  }
  return length;
}

static void lk_push_capture(lk_match_state *m, int i, const char *s, const char *e) {
  const char *start;
  ptrdiff_t length = lk_capture(m, i, s, e, &start);
  if (length != LK_CAPTURE_POSITION) lua_pushlstring(m->L, start, (size_t)length);
}

// Pushes every capture (the whole match when there are none and `s` is given); how many.
static int lk_push_captures(lk_match_state *m, const char *s, const char *e) {
  int count = m->level == 0 && s != NULL ? 1 : m->level;
  luaL_checkstack(m->L, count, "too many captures");
  for (int i = 0; i < count; i++) lk_push_capture(m, i, s, e);
  return count;
}

// MARK: - The plain search

// Whether the pattern has no special character (a '\0' in it does not end it).
static int lk_has_no_specials(const char *p, size_t length) {
  size_t done = 0;
  do {
    if (strpbrk(p + done, lk_specials) != NULL) return 0;
    done += strlen(p + done) + 1;
  } while (done <= length);
  return 1;
}

// The first `needle` in `haystack`, as Lua's search finds it, each byte scanned and each
// candidate compared charged.
static const char *lk_find_plain(
    lua_State *L, const char *haystack, size_t length, const char *needle, size_t size) {
  if (size == 0) return haystack;
  if (size > length) return NULL;
  size_t rest = size - 1;  // what follows the first byte, which memchr finds
  size_t room = length - rest;  // where a match may start
  size_t charged = 0;
  const char *found = NULL;
  while (room > 0) {
    const char *start = memchr(haystack, *needle, room);
    if (start == NULL) {
      charged += room;
      break;
    }
    charged += (size_t)(start - haystack) + 1 + rest;
    if (charged >= LK_STEPS_PER_CHARGE * 16) {
      lk_charge(L, (lua_Integer)(charged / 16));
      charged = 0;
    }
    if (memcmp(start + 1, needle + 1, rest) == 0) {
      found = start;
      break;
    }
    room -= (size_t)(start + 1 - haystack);
    haystack = start + 1;
  }
  lk_charge(L, (lua_Integer)(charged / 16));
  return found;
}

// MARK: - The library

static void lk_prepare(lk_match_state *m, lua_State *L, const char *s, size_t length,
                       const char *p, size_t size) {
  m->L = L;
  m->calls_left = LK_MAX_CALLS;
  m->subject = s;
  m->subject_end = s + length;
  m->pattern_end = p + size;
  m->steps = 0;
}

// A start position: negative counts from the end, clipped to [1, ...].
static size_t lk_start_of(lua_Integer position, size_t length) {
  if (position > 0) return (size_t)position;
  if (position == 0) return 1;
  if (position < -(lua_Integer)length) return 1;
  return length + (size_t)position + 1;
}

static int lk_find_or_match(lua_State *L, int find) {
  size_t length, size;
  const char *s = luaL_checklstring(L, 1, &length);
  const char *p = luaL_checklstring(L, 2, &size);
  size_t start = lk_start_of(luaL_optinteger(L, 3, 1), length) - 1;
  if (start > length) {
    luaL_pushfail(L);
    return 1;
  }
  if (find && (lua_toboolean(L, 4) || lk_has_no_specials(p, size))) {
    const char *found = lk_find_plain(L, s + start, length - start, p, size);
    if (found != NULL) {
      lua_pushinteger(L, (found - s) + 1);
      lua_pushinteger(L, (found - s) + (lua_Integer)size);
      return 2;
    }
  } else {
    lk_match_state m;
    const char *at = s + start;
    int anchor = *p == '^';
    if (anchor) {
      p++;
      size--;
    }
    lk_prepare(&m, L, s, length, p, size);
    do {
      m.level = 0;
      const char *e = lk_match(&m, at, p);
      if (e != NULL) {
        if (!find) return lk_push_captures(&m, at, e);
        lua_pushinteger(L, (at - s) + 1);
        lua_pushinteger(L, e - s);
        return lk_push_captures(&m, NULL, NULL) + 2;
      }
    } while (at++ < m.subject_end && !anchor);
  }
  luaL_pushfail(L);
  return 1;
}

static int lk_string_find(lua_State *L) { return lk_find_or_match(L, 1); }
static int lk_string_match(lua_State *L) { return lk_find_or_match(L, 0); }

// A gmatch iteration; its closure keeps the subject and the pattern alive as upvalues.
typedef struct {
  const char *at;          // where the next search starts
  const char *pattern;
  const char *last_match;  // the end of the last match: an empty match there is skipped
  lk_match_state m;
} lk_gmatch_state;

static int lk_gmatch_next(lua_State *L) {
  lk_gmatch_state *g = lua_touserdata(L, lua_upvalueindex(3));
  g->m.L = L;
  g->m.steps = 0;
  for (const char *at = g->at; at <= g->m.subject_end; at++) {
    g->m.level = 0;
    const char *e = lk_match(&g->m, at, g->pattern);
    if (e != NULL && e != g->last_match) {
      g->at = g->last_match = e;
      return lk_push_captures(&g->m, at, e);
    }
  }
  return 0;
}

static int lk_string_gmatch(lua_State *L) {
  size_t length, size;
  const char *s = luaL_checklstring(L, 1, &length);
  const char *p = luaL_checklstring(L, 2, &size);
  size_t start = lk_start_of(luaL_optinteger(L, 3, 1), length) - 1;
  lua_settop(L, 2);
  lk_gmatch_state *g = lua_newuserdatauv(L, sizeof *g, 0);
  if (start > length) start = length + 1;
  lk_prepare(&g->m, L, s, length, p, size);
  g->at = s + start;
  g->pattern = p;
  g->last_match = NULL;
  lua_pushcclosure(L, lk_gmatch_next, 3);
  return 1;
}

// Appends the replacement string (argument 3) for the match from `s` to `e`.
static void lk_add_replacement_string(
    lk_match_state *m, luaL_Buffer *buffer, const char *s, const char *e) {
  lua_State *L = m->L;
  size_t length;
  const char *r = lua_tolstring(L, 3, &length);
  const char *escape;
  while ((escape = memchr(r, lk_escape, length)) != NULL) {
    luaL_addlstring(buffer, r, (size_t)(escape - r));
    escape++;
    if (*escape == lk_escape) {
      luaL_addchar(buffer, *escape);
    } else if (*escape == '0') {
      luaL_addlstring(buffer, s, (size_t)(e - s));
    } else if (isdigit((unsigned char)*escape)) {
      const char *start;
      ptrdiff_t captured = lk_capture(m, *escape - '1', s, e, &start);
      if (captured == LK_CAPTURE_POSITION) luaL_addvalue(buffer);
      else luaL_addlstring(buffer, start, (size_t)captured);
    } else {
      luaL_error(L, "invalid use of '%c' in replacement string", lk_escape);
    }
    length -= (size_t)(escape + 1 - r);
    r = escape + 1;
  }
  luaL_addlstring(buffer, r, length);
}

// Appends the replacement for the match from `s` to `e`; whether it changed the subject (a
// function or table answering nil or false keeps the match as it was).
static int lk_add_replacement(
    lk_match_state *m, luaL_Buffer *buffer, const char *s, const char *e, int kind) {
  lua_State *L = m->L;
  switch (kind) {
    case LUA_TFUNCTION: {
      lua_pushvalue(L, 3);
      int count = lk_push_captures(m, s, e);
      lua_call(L, count, 1);
      break;
    }
    case LUA_TTABLE:
      lk_push_capture(m, 0, s, e);
      lua_gettable(L, 3);
      break;
    default:
      lk_add_replacement_string(m, buffer, s, e);
      return 1;
  }
  if (!lua_toboolean(L, -1)) {
    lua_pop(L, 1);
    luaL_addlstring(buffer, s, (size_t)(e - s));
    return 0;
  }
  if (!lua_isstring(L, -1)) {
    return luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
  }
  luaL_addvalue(buffer);
  return 1;
}

static int lk_string_gsub(lua_State *L) {
  size_t length, size;
  const char *s = luaL_checklstring(L, 1, &length);
  const char *p = luaL_checklstring(L, 2, &size);
  const char *last_match = NULL;
  int kind = lua_type(L, 3);
  lua_Integer most = luaL_optinteger(L, 4, (lua_Integer)length + 1);
  int anchor = *p == '^';
  lua_Integer count = 0;
  int changed = 0;
  luaL_argexpected(L, kind == LUA_TNUMBER || kind == LUA_TSTRING || kind == LUA_TFUNCTION ||
                   kind == LUA_TTABLE, 3, "string/function/table");
  luaL_Buffer buffer;
  luaL_buffinit(L, &buffer);
  if (anchor) {
    p++;
    size--;
  }
  lk_match_state m;
  lk_prepare(&m, L, s, length, p, size);
  while (count < most) {
    m.level = 0;
    const char *e = lk_match(&m, s, p);
    if (e != NULL && e != last_match) {
      count++;
      changed = lk_add_replacement(&m, &buffer, s, e, kind) | changed;
      s = last_match = e;
    } else if (s < m.subject_end) {
      luaL_addchar(&buffer, *s++);
    } else {
      break;
    }
    if (anchor) break;
  }
  if (!changed) {
    lua_pushvalue(L, 1);  // nothing replaced: the subject itself, not a copy
  } else {
    luaL_addlstring(&buffer, s, (size_t)(m.subject_end - s));
    luaL_pushresult(&buffer);
  }
  lua_pushinteger(L, count);
  return 2;
}

// Lua's own versions stay reachable to the host, for tests that compare the two.
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
