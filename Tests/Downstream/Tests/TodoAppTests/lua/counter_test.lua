-- A Lua test run by `swift test` (LuaTestFilesTests.swift), as the README's "Lua tests from
-- `swift test`" has one: the folder is excluded from the target in Package.swift.
local TestStore = require("composable.test").TestStore
local Counter = require("counter")

describe("counter", function()
  it("counts", function()
    local store = TestStore.new{ feature = Counter, state = { count = 0 } }
    store:send("increment", function(s) s.count = 1 end)
    store:send("increment", function(s) s.count = 2 end)
  end)
end)
