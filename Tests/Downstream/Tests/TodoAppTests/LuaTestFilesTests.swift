// The README's "Lua tests from `swift test`": one case per *_test.lua file beside this one.
import ComposableLuaTesting
import Testing

@Test(arguments: LuaTestFile.all(in: "lua"))  // beside this Swift file: lua/**/*_test.lua
func lua(_ file: LuaTestFile) async { await file.run() }
