// libFuzzer target for the journal and the proxies (Sources/LuaSupport/Transaction.c).
//
// Each input is a program of 4-byte operations over one state: transactions opened, committed
// and rolled back; writes, rawsets, reads, next/pairs walks, the table library (insert and
// remove anywhere, move within and between tables, sort, concat, unpack), identity checks
// (a table read twice is one proxy), xpcall handlers and `__close` handlers writing around a
// stop, closing coroutines a stop killed, `load` in pieces and string.pack, new and deep plain
// tables, metatables, host writes, all through references kept in a table of slots the way
// feature code keeps them in locals. After every operation the harness checks the
// invariant: no slot (what Lua code holds) is a real table of the state, and no hidden key is
// visible; after every rollback, the state is what it was when the transaction opened. A
// violation aborts, which libFuzzer reports with the input. `scripts/fuzz` builds and runs it.
#include "LuaSupport.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char harness[] =
    "local real, root, journal = ...\n"
    "local refs = { root, root, root, root, root, root, root, root }\n"
    "local keys = { 1, 2, 3, 'a', 'b', 'c' }\n"
    "local function reals(t, set, depth)\n"
    "  if set[t] or depth > 40 then return end\n"
    "  set[t] = true\n"
    "  for k, v in next, t do\n"
    "    if type(k) == 'userdata' then error('hidden key visible') end\n"
    "    if type(v) == 'table' then reals(v, set, depth + 1) end\n"
    "  end\n"
    "end\n"
    "-- Canonical: keys in a fixed order, so shared tables are numbered the same way whatever\n"
    "-- order the table's storage gives them in.\n"
    "local function serialize(t, seen, depth)\n"
    "  if seen[t] then return '<' .. seen[t] .. '>' end\n"
    "  if depth > 40 then return '<deep>' end\n"
    "  seen.n = (seen.n or 0) + 1\n"
    "  seen[t] = seen.n\n"
    "  local keys = {}\n"
    "  for k in next, t do keys[#keys + 1] = k end\n"
    "  local function name(k) return type(k) .. tostring(k) end\n"
    "  table.sort(keys, function(x, y) return name(x) < name(y) end)\n"
    "  local parts = {}\n"
    "  for _, k in ipairs(keys) do\n"
    "    local v = t[k]\n"
    "    local text = type(v) == 'table' and serialize(v, seen, depth + 1) or tostring(v)\n"
    "    parts[#parts + 1] = type(k) .. tostring(k) .. '=' .. text\n"
    "  end\n"
    "  return '{' .. table.concat(parts, ',') .. '}'\n"
    "end\n"
    "local function value(c)\n"
    "  local kind = c % 4\n"
    "  if kind == 0 then return refs[c % 8 + 1] end\n"
    "  if kind == 1 then return { x = c, y = { refs[(c + 3) % 8 + 1] } } end\n"
    "  if kind == 2 then return c end\n"
    "  return nil\n"
    "end\n"
    "local function step(op, a, b, c)\n"
    "  local t = refs[a % 8 + 1]\n"
    "  if type(t) ~= 'table' then t = root end\n"
    "  local k = keys[b % #keys + 1]\n"
    "  local slot = c % 8 + 1\n"
    "  if op == 0 then t[k] = value(c)\n"
    "  elseif op == 1 then rawset(t, k, value(c))\n"
    "  elseif op == 2 then refs[slot] = t[k]\n"
    "  elseif op == 3 then refs[slot] = rawget(t, k)\n"
    "  elseif op == 4 then local nk, nv = next(t) refs[slot] = nv refs[(slot % 8) + 1] = nk\n"
    "  elseif op == 5 and b % 2 == 0 then for _, v in pairs(t) do refs[slot] = v end\n"
    "  elseif op == 5 then\n"
    "    for i, v in ipairs(t) do refs[slot] = v if i == c % 4 then t[i + 1] = value(b) end end\n"
    "  elseif op == 6 then refs[slot] = { t, { k = k }, refs[b % 8 + 1] }\n"
    "  elseif op == 7 then setmetatable(refs[slot] == root and {} or refs[slot], {})\n"
    "  elseif op == 8 then table.insert(t, value(c))\n"
    "  elseif op == 9 then table.remove(t)\n"
    "  elseif op == 10 then t[k] = nil\n"
    "  elseif op == 11 then\n"
    "    local deep = {}\n"
    "    local node = deep\n"
    "    for i = 1, c do node.next = { i = i } node = node.next end\n"
    "    node.back = refs[b % 8 + 1]\n"
    "    refs[slot] = deep\n"
    "  elseif op == 12 then refs[slot] = root\n"
    "  elseif op == 13 then refs[slot] = #t\n"
    "  elseif op == 18 then table.insert(t, b % (#t + 2), value(c))\n"
    "  elseif op == 19 then refs[slot] = table.remove(t, b % (#t + 2))\n"
    "  elseif op == 20 then\n"
    "    local to = refs[c % 8 + 1]\n"
    "    table.move(t, b % 4, c % 5, (b + c) % 4, type(to) == 'table' and to or t)\n"
    "  elseif op == 21 and b % 2 == 0 then\n"
    "    table.sort(t, function(x, y) return type(x) .. tostring(x) < type(y) .. tostring(y) end)\n"
    "  elseif op == 21 then\n"
    "    -- An order function that reads its elements' fields and writes one (a table, say).\n"
    "    local n = 0\n"
    "    pcall(table.sort, t, function(x, y)\n"
    "      n = n + 1\n"
    "      if type(x) == 'table' and n == c % 7 + 1 then x[k] = value(c) refs[slot] = x[k] end\n"
    "      if type(y) == 'table' then refs[(slot % 8) + 1] = y[k] end\n"
    "      return type(x) .. tostring(x) < type(y) .. tostring(y)\n"
    "    end)\n"
    "  elseif op == 22 then\n"
    "    local v = t[k]\n"
    "    if type(v) == 'table' and not rawequal(v, rawget(t, k)) then\n"
    "      error('identity escaped: two proxies of one table')\n"
    "    end\n"
    "  elseif op == 23 then refs[slot] = table.concat({ table.unpack(t, 1, b % 4) }, ',')\n"
    "  elseif op == 24 then\n"
    "    xpcall(function() t[k] = value(c) if b % 3 == 0 then while true do end end error({}) end,\n"
    "      function(e) t[k] = value(b) return e end)\n"
    "  elseif op == 25 then\n"
    "    local co = coroutine.create(function()\n"
    "      local _ <close> = setmetatable({}, { __close = function() t[k] = value(c) end })\n"
    "      if b % 2 == 0 then while true do end end\n"
    "      coroutine.yield(1)\n"
    "    end)\n"
    "    pcall(coroutine.resume, co)\n"
    "    refs[slot] = co\n"
    "  elseif op == 26 then\n"
    "    local co = refs[b % 8 + 1]\n"
    "    if type(co) == 'thread' then refs[slot] = select(2, pcall(coroutine.close, co)) end\n"
    "  elseif op == 27 then\n"
    "    local f = load(string.rep(' ', b * 40) .. 'local t, k = ... t[k] = ' .. c, 'x', 't')\n"
    "    if f then f(t, k) end\n"
    "    local n = b % 8 + 1\n"
    "    refs[slot] = string.unpack('<i' .. n, string.pack('<i' .. n, c))\n"
    "  elseif op == 28 then refs[slot] = journal.had_element(t, k, 'x', c)\n"
    "  elseif op == 29 then refs[slot] = journal.was_set(t, k)\n"
    "  elseif op == 31 then\n"
    "    local cur = t\n"
    "    for _ = 1, c do local n = {} cur[keys[b % 6 + 1]] = n cur = n end\n"
    "  end\n"
    "end\n"
    "local function check()\n"
    "  local set = {}\n"
    "  reals(real, set, 0)\n"
    "  for i = 1, 8 do\n"
    "    if type(refs[i]) == 'table' and set[refs[i]] then error('a real table escaped') end\n"
    "    if type(refs[i]) == 'userdata' then error('a hidden key is visible') end\n"
    "  end\n"
    "end\n"
    "local function snapshot() return serialize(real, {}, 0) end\n"
    "-- The state's shape, walked in Lua: 'deep' past 200 levels, 'cycle', or 'ok'.\n"
    "local function walk(t, onpath, best, depth)\n"
    "  if depth > 200 then return 'deep' end\n"
    "  if onpath[t] then return 'cycle' end\n"
    "  if best[t] and best[t] >= depth then return 'ok' end\n"
    "  onpath[t] = true\n"
    "  for _, v in next, t do\n"
    "    if type(v) == 'table' then\n"
    "      local r = walk(v, onpath, best, depth + 1)\n"
    "      if r ~= 'ok' then return r end\n"
    "    end\n"
    "  end\n"
    "  onpath[t], best[t] = nil, depth\n"
    "  return 'ok'\n"
    "end\n"
    "local function shape() return walk(real, {}, {}, 1) end\n"
    "return step, check, snapshot, shape\n";

// Calls the function at `function` with integer arguments; returns Lua's status (the message,
// on an error, or the results are left on the stack: `nresults` of them).
static int call(lua_State *L, int function, int nargs, int nresults, const int *args) {
  lua_pushvalue(L, function);
  for (int i = 0; i < nargs; i++) lua_pushinteger(L, args[i]);
  return lk_pcall(L, nargs, nresults);
}

// The harness found the invariant broken: stop so that libFuzzer keeps the input.
static void violated(lua_State *L, const char *what) {
  const char *message = lua_tostring(L, -1);
  fprintf(stderr, "transaction_fuzzer: %s: %s\n", what, message ? message : "");
  abort();
}

// proxy[key] = a number no field held before: a write that changes the field from what it
// held when the transaction began, whatever it held since (a field written back to its first
// value is, rightly, no change).
static int bump_field(lua_State *L) {
  static lua_Integer next = (lua_Integer)1 << 40;  // above every number the harness writes
  lua_pushvalue(L, 2);
  lua_pushinteger(L, next++);
  lua_settable(L, 1);
  return 0;
}

// Takes the harness's snapshot of the state: false when the VM's cap left no room for it (a
// program may fill the 8 MiB cap, and a transaction open for all of it holds what its writes
// made: a failed adoption's proxies among them), which ends the run without a finding.
static int took_snapshot(lua_State *L, int snapshot, const int *args) {
  int status = call(L, snapshot, 0, 1, args);
  if (status == LUA_ERRMEM) return 0;
  if (status != LUA_OK) violated(L, "snapshot");
  return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  lua_State *L = lk_newstate(8 << 20);
  if (L == NULL) return 0;
  lk_set_instruction_limit(L, 200000);
  lua_createtable(L, 0, 1);
  lk_set_array_marker(L, -1);
  lua_pop(L, 1);
  lua_newtable(L);  // the state's real root
  int real = lua_gettop(L);
  lk_push_transactional_proxy(L, real);
  int proxy = lua_gettop(L);
  lua_pushvalue(L, proxy);
  int proxy_slot = luaL_ref(L, LUA_REGISTRYINDEX);  // the root a transaction opens on
  if (luaL_loadstring(L, harness) != LUA_OK) violated(L, "the harness does not compile");
  lua_pushvalue(L, real);
  lua_pushvalue(L, proxy);
  lk_push_journal_module(L);
  if (lk_pcall(L, 3, 4) != LUA_OK) violated(L, "the harness does not start");
  int step = lua_gettop(L) - 3, check = step + 1, snapshot = step + 2, shape = step + 3;
  int open = 0;
  int before = 0;  // stack slot of the snapshot taken when the transaction opened
  for (size_t i = 0; i + 4 <= size; i += 4) {
    int op = data[i] % 32;  // 14-17 and 30 are the host's; the rest are the harness's `step`
    int args[4] = {op, data[i + 1], data[i + 2], data[i + 3]};
    int top = lua_gettop(L);
    if (op == 14) {
      if (open) continue;
      lk_transaction_begin(L, proxy_slot);
      open = 1;
      if (!took_snapshot(L, snapshot, args)) goto out_of_memory;
      if (before != 0) lua_remove(L, before);
      before = lua_gettop(L);
      continue;
    }
    if (op == 15) {
      if (open) {
        // What the transaction changed, as a host that prints it reads it: it must not fail
        // (but for memory) and must leave the state exactly as it was.
        if (!took_snapshot(L, snapshot, args)) goto out_of_memory;
        int status = lk_transaction_changes(L, proxy);
        if (status == LUA_OK) {
          if (lua_type(L, -1) != LUA_TTABLE) violated(L, "the changes are not a table");
          for (int part = 1; part <= 3; part++) {
            if (lua_rawgeti(L, -1, part) != LUA_TTABLE) violated(L, "a part of the changes");
            lua_pop(L, 1);
          }
        } else if (status != LUA_ERRMEM) {
          violated(L, "reading the changes");
        }
        lua_pop(L, 1);
        if (!took_snapshot(L, snapshot, args)) goto out_of_memory;
        if (!lua_rawequal(L, -1, -2)) violated(L, "reading the changes changed the state");
        lua_settop(L, top);
        // The shape the host checks before it commits, against the harness's own walk: the
        // check passes exactly when the state is at most 200 levels deep and has no cycle.
        int checked = lk_transaction_check_shape(L, proxy);
        if (checked == LUA_ERRMEM) goto out_of_memory;
        if (call(L, shape, 0, 1, args) != LUA_OK) goto out_of_memory;
        int in_shape = strcmp(lua_tostring(L, -1), "ok") == 0;
        if ((checked == LUA_OK) != in_shape) {
          fprintf(stderr, "check: %d, the harness: %s\n", checked, lua_tostring(L, -1));
          violated(L, "the shape check disagrees with a walk of the state");
        }
        lua_settop(L, top);
        if (checked != LUA_OK) {
          if (lk_transaction_rollback(L) != LUA_OK) violated(L, "rollback");
          open = 0;
          if (!took_snapshot(L, snapshot, args)) goto out_of_memory;
          if (!lua_rawequal(L, -1, before)) violated(L, "a rollback after the shape check");
          lua_settop(L, top);
          continue;
        }
        lk_transaction_commit(L);
      }
      open = 0;
      continue;
    }
    if (op == 16) {
      if (!open) continue;
      if (lk_transaction_rollback(L) != LUA_OK) violated(L, "rollback");
      open = 0;
      if (!took_snapshot(L, snapshot, args)) goto out_of_memory;
      if (!lua_rawequal(L, -1, before)) {
        fprintf(stderr, "before: %s\nafter:  %s\n", lua_tostring(L, before), lua_tostring(L, -1));
        violated(L, "a rollback did not restore the state");
      }
      lua_settop(L, top);
      continue;
    }
    if (op == 17) {
      if (open) continue;  // a host write is not journaled: only between transactions
      lua_createtable(L, 0, 2);
      lua_createtable(L, 2, 0);
      lua_pushinteger(L, args[1]);
      lua_rawseti(L, -2, 1);
      lua_setfield(L, -2, "a");
      if (lk_state_write(L, proxy, 0, lua_gettop(L)) != LUA_OK) violated(L, "host write");
      lua_settop(L, top);
      continue;
    }
    if (op == 30) {
      // Whether a field may have changed (what a feature that persists asks before a save):
      // it must not change the state, and after a write that changes the field, it says so.
      if (!open) continue;
      static const char *const fields[] = {"a", "b", "c"};
      lua_pushstring(L, fields[args[1] % 3]);
      int key = lua_gettop(L);
      if (!took_snapshot(L, snapshot, args)) goto out_of_memory;
      (void)lk_transaction_changed_field(L, proxy, key);
      if (!took_snapshot(L, snapshot, args)) goto out_of_memory;
      if (!lua_rawequal(L, -1, -2)) violated(L, "asking whether a field changed changed it");
      lua_pushcfunction(L, bump_field);
      lua_pushvalue(L, proxy);
      lua_pushvalue(L, key);
      if (lk_pcall(L, 2, 0) == LUA_OK && !lk_transaction_changed_field(L, proxy, key)) {
        violated(L, "a write of the field was not seen");
      }
      lua_settop(L, top);
      continue;
    }
    call(L, step, 4, 0, args);  // errors are expected: refused writes, too deep, ...
    lua_settop(L, top);
    if (call(L, check, 0, 0, args) != LUA_OK) {
      const char *message = lua_tostring(L, -1);
      if (message && (strstr(message, "escaped") || strstr(message, "hidden"))) {
        violated(L, "invariant");
      }
    }
    lua_settop(L, top);
  }
out_of_memory:
  if (open) lk_transaction_rollback(L);
  lk_close(L);
  return 0;
}
