// Fuzzes composable.json (JSON.c): any bytes given to json.decode are a value or an error, never
// a crash, a leak or undefined behaviour; and what decodes encodes to text that decodes to the
// same text again (a fixed point after one round).
#include "LuaSupport.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char harness[] =
    "local json, text = ...\n"
    "local ok, value = pcall(json.decode, text)\n"
    "if not ok then\n"
    "  assert(value:find('json.decode: line %d+, column %d+: '), value)\n"
    "  return\n"
    "end\n"
    "local ok2, once = pcall(json.encode, value)\n"
    "if not ok2 then\n"
    "  -- Only a number too large for a double (1e999) decodes to what has no JSON form.\n"
    "  assert(once:find('infinite number'), once)\n"
    "  return\n"
    "end\n"
    "local twice = json.encode(json.decode(once))\n"
    "assert(once == twice, once .. ' ~= ' .. twice)\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  lua_State *L = lk_newstate(8 << 20);
  if (L == NULL) return 0;
  lk_set_instruction_limit(L, 1000000);
  lua_createtable(L, 0, 1);
  lk_set_array_marker(L, -1);
  lua_pop(L, 1);
  luaL_openlibs(L);
  if (luaL_loadstring(L, harness) != LUA_OK) abort();
  lk_push_json_module(L);
  lua_pushlstring(L, (const char *)data, size);
  if (lk_pcall(L, 2, 0) != LUA_OK) {
    const char *message = lua_tostring(L, -1);
    // Running out of the budget or of memory is an answer; anything else is a finding.
    if (message == NULL || (!strstr(message, "limit") && !strstr(message, "memory"))) {
      fprintf(stderr, "json fuzzer: %s\n", message ? message : "(no message)");
      abort();
    }
  }
  lk_close(L);
  return 0;
}
