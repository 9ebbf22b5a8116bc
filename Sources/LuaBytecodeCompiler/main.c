// lua-bytecode OUTPUT.swift FILE.lua...: compiles each Lua file with the installed Lua 5.4 (as
// pkg-config finds it: the same release as the static liblua5.4.a the package links, which
// PrecompiledLibraryTests checks by compiling again) and writes its bytecode as a Swift array,
// so that a process loads the library's chunks without parsing them. LuaBytecodePlugin runs it
// at build time.
//
// A chunk is named `=` and its file name without `.lua` (`composable.effect.lua` compiles as
// `=composable.effect`): a binary chunk keeps the name it was compiled with, so that is the name
// errors in it show. Debug information is kept: errors and tracebacks read as from the source.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Where pkg-config's flags point (Debian's and Homebrew's include/lua5.4), else Debian's layout.
#if __has_include(<lua.h>)
#include <lauxlib.h>
#include <lua.h>
#else
#include <lua5.4/lauxlib.h>
#include <lua5.4/lua.h>
#endif

typedef struct {
  FILE *out;
  size_t written;
} ArrayWriter;

/// lua_dump's writer: the bytes as the elements of a Swift array literal, 16 to a line.
static int write_bytes(lua_State *L, const void *bytes, size_t size, void *context) {
  (void)L;
  ArrayWriter *writer = context;
  const unsigned char *byte = bytes;
  for (size_t i = 0; i < size; i++, writer->written++) {
    fprintf(writer->out, writer->written % 16 == 0 ? "\n    0x%02x," : " 0x%02x,", byte[i]);
  }
  return 0;
}

static char *read_file(const char *path, size_t *size) {
  FILE *file = fopen(path, "rb");
  if (file == NULL) return NULL;
  char *text = NULL;
  long length = fseek(file, 0, SEEK_END) == 0 ? ftell(file) : -1;
  if (length >= 0 && fseek(file, 0, SEEK_SET) == 0) {
    text = malloc((size_t)length + 1);
    if (text != NULL && fread(text, 1, (size_t)length, file) != (size_t)length) {
      free(text);
      text = NULL;
    }
  }
  fclose(file);
  *size = (size_t)length;
  return text;
}

/// Ends a failed run: the partial output removed.
static int fail(FILE *out, const char *partial) {
  fclose(out);
  remove(partial);
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: lua-bytecode OUTPUT.swift FILE.lua...\n");
    return 64;
  }
  // Written beside the output and renamed at the end: a failed run leaves no half a file.
  char partial[4096];
  snprintf(partial, sizeof partial, "%s.partial", argv[1]);
  FILE *out = fopen(partial, "w");
  if (out == NULL) {
    perror(partial);
    return 1;
  }
  lua_State *L = luaL_newstate();
  fprintf(out, "// Generated at build time by lua-bytecode (LuaBytecodePlugin): do not edit.\n\n");
  fprintf(out, "/// This module's Lua files, compiled by the Lua it links.\n");
  fprintf(out, "enum LuaBytecode {\n");
  for (int i = 2; i < argc; i++) {
    const char *slash = strrchr(argv[i], '/');
    const char *file = slash ? slash + 1 : argv[i];
    size_t length = strlen(file);
    if (length <= 4 || strcmp(file + length - 4, ".lua") != 0) {
      fprintf(stderr, "lua-bytecode: %s: expected a .lua file\n", argv[i]);
      return fail(out, partial);
    }
    char chunkname[256], name[256];
    snprintf(chunkname, sizeof chunkname, "=%.*s", (int)(length - 4), file);
    snprintf(name, sizeof name, "%.*s", (int)(length - 4), file);
    for (char *c = name; *c; c++) {
      if (*c == '.' || *c == '-') *c = '_';
    }
    size_t size = 0;
    char *text = read_file(argv[i], &size);
    if (text == NULL) {
      perror(argv[i]);
      return fail(out, partial);
    }
    if (luaL_loadbufferx(L, text, size, chunkname, "t") != LUA_OK) {
      fprintf(stderr, "%s: %s\n", argv[i], lua_tostring(L, -1));
      return fail(out, partial);
    }
    fprintf(out, "  /// `%s`, compiled as chunk `%s`.\n", file, chunkname);
    fprintf(out, "  static let %s: [UInt8] = [", name);
    ArrayWriter writer = {out, 0};
    lua_dump(L, write_bytes, &writer, 0);
    fprintf(out, "\n  ]\n");
    lua_pop(L, 1);
    free(text);
  }
  fprintf(out, "}\n");
  lua_close(L);
  if (fclose(out) != 0 || rename(partial, argv[1]) != 0) {
    perror(argv[1]);
    remove(partial);
    return 1;
  }
  return 0;
}
