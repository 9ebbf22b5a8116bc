#ifndef CLUA_SHIM_H
#define CLUA_SHIM_H
#include <lua5.4/lua.h>
#include <lua5.4/lualib.h>
#include <lua5.4/lauxlib.h>
#endif
