-- luacheck's settings for every .lua file of the repository; scripts/test runs it on them all.
std = "lua54"
max_line_length = 100
-- Tests run in the host's test sandbox, which gives them busted's globals.
files["**/*_test.lua"] = { std = "+busted", read_globals = { "expect_failure" } }
-- LuaLS annotation files (`---@meta`): declarations with empty bodies, setting the globals they
-- describe (the test globals, `sleep`, `http` and `file` inside effect.run).
files["**/*.meta.lua"] = {
  allow_defined_top = true, unused_args = false, unused = false, ignore = { "131" },
  globals = { "sleep", "http", "file", "describe", "context", "it", "pending", "before_each",
    "after_each", "expect_failure" },
}
-- The conformance run's harness and plain-Lua side (Sources/Conformance): they set up the
-- globals a rewritten test file calls, and take away what a sandbox leaves out.
files["Sources/Conformance/harness.lua"] = {
  globals = { "__statement", "__skip", "collectgarbage", "require" },
}
files["Sources/Conformance/plain.lua"] = { globals = { "require", "string", "math" } }
-- The differential tests' prelude defines what generated programs call.
files["Tests/ComposableLuaTests/lua/differential/prelude.lua"] = { globals = { "out", "case" } }
