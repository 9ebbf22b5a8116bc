-- luacheck's settings for every .lua file of the repository; scripts/test runs it on them all.
std = "lua54"
max_line_length = 100
-- Tests run in the host's test sandbox, which gives them busted's globals.
files["**/*_test.lua"] = { std = "+busted" }
