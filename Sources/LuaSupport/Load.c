// Loading source and bytecode from the host: text in pieces, each charged before the parser
// sees it (LK_SOURCE_PIECE), under the memory cap; bytecode only from the build's own chunks.
#include "LuaState.h"

void lk_charge_source(lua_State *L, size_t bytes, int64_t started_ns) {
  lk_info *info = lk_info_of(L);
  if (info->calls.depth != 0) {
    lk_charge(L, (lua_Integer)(bytes / LK_SOURCE_BYTES_PER_INSTRUCTION));
    return;
  }
  if (info->budget.time_limit != 0 &&
      lk_monotonic_ns() - started_ns > (int64_t)(info->budget.time_limit * 1e9)) {
    luaL_error(L, "reading this source took longer than the time limit of %f seconds",
               (lua_Number)info->budget.time_limit);
  }
}

typedef struct {
  const char *rest;  // what the parser has not been given yet
  size_t length;
  int64_t started_ns;
} lk_source_pieces;

static const char *lk_next_source_piece(lua_State *L, void *data, size_t *size) {
  lk_source_pieces *pieces = data;
  if (pieces->length == 0) return NULL;
  *size = pieces->length < LK_SOURCE_PIECE ? pieces->length : LK_SOURCE_PIECE;
  lk_charge_source(L, *size, pieces->started_ns);
  const char *piece = pieces->rest;
  pieces->rest += *size;
  pieces->length -= *size;
  return piece;
}

// The source goes to the parser in pieces (see LK_SOURCE_PIECE), under the memory cap: a
// source a feature could not hold in its state is not one it may have parsed either.
int lk_loadtext(lua_State *L, const char *source, size_t length, const char *chunkname) {
  lk_info *info = lk_info_of(L);
  lk_source_pieces pieces = {source, length, lk_monotonic_ns()};
  int saved_enforce = lk_memory_cap_set(&info->memory, 1);
  int status = lua_load(L, lk_next_source_piece, &pieces, chunkname, "t");
  lk_memory_cap_restore(&info->memory, saved_enforce);
  return status;
}

int lk_loadbinary(lua_State *L, const unsigned char *bytecode, size_t length) {
  return luaL_loadbufferx(L, (const char *)bytecode, length, "=bytecode", "b");
}
