-- Run first in the environment a rewritten test file runs in (plain `lua5.4`'s, the sandbox's,
-- a feature's): what the rewriting calls, and stand-ins for what the sandbox leaves out on
-- purpose, the same on every side, so that only the implementations differ.
local report = ... or print

-- Runs statement `n` (line `line`), protected, and reports how it ended on one line. A runner
-- may skip statements (`__skip[n]`: one that ended the run before, when run again from the
-- start).
function __statement(n, line, body, ...)
  if __skip and __skip[n] then return end
  local ok, message = pcall(body, ...)
  if ok then
    report(("@@ %d %d ok"):format(n, line))
  else
    message = tostring(message):gsub("0x%x+", "0x?"):gsub("\n", "\\n")
    report(("@@ %d %d error %s"):format(n, line, message))
  end
end

-- The collector is the host's (the sandbox has no collectgarbage): a stand-in that answers.
function collectgarbage(option)
  if option == "count" then return 0, 0 end
  if option == "isrunning" then return true end
  if option == "step" then return true end
  return 0
end

-- tracegc.lua (the suite's helper) traces the collector with a finalizer, which the sandbox
-- refuses: a stand-in that does nothing, on every side.
-- Modules of plain Lua the sandbox does not have (`debug`) or the suite expects from elsewhere
-- (`bit32`) are missing on every side, with the same words.
local require_module = require
local tracegc = { start = function() end, stop = function() end }
local missing = { debug = true, bit32 = true, io = true, os = true, package = true }
function require(name)
  if name == "tracegc" then return tracegc end
  if missing[name] then error(("module '%s' not found"):format(name), 2) end
  return require_module(name)
end
