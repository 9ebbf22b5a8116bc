#ifndef CLUA_INSTALLED_SHIM_H
#define CLUA_INSTALLED_SHIM_H
// pkg-config's flags name Lua's include directory: Debian's /usr/include/lua5.4, Homebrew's
// .../include/lua5.4.
#include <lua.h>
#include <lualib.h>
#include <lauxlib.h>
#endif
