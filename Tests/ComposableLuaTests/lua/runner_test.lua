-- The runner's own behaviour, tested from Lua.
-- luacheck: globals leaked (set by one test to show the next one does not see it)
local log = {}

describe("the runner", function()
  before_each(function() table.insert(log, "before") end)
  after_each(function() table.insert(log, "after") end)

  it("runs before_each first", function()
    assert.same({ "before" }, log)
    leaked = "set by an earlier test"
  end)

  it("gives every test a fresh environment", function()
    -- A fresh VM: the global set by the test before, and its log entries, are gone.
    assert.is_nil(leaked)
    assert.same({ "before" }, log)
  end)

  describe("nested", function()
    before_each(function() table.insert(log, "inner before") end)
    it("runs outer hooks before inner ones", function()
      assert.same({ "before", "inner before" }, log)
    end)
  end)

  it("checks errors and their messages", function()
    assert.error(function() error("the sky is falling") end, "sky")
    assert.error(function() error({ code = 1 }) end)
    assert.truthy(1)
    assert.falsy(nil)
    assert.equal(3, 1 + 2)
    assert.are.same({ 1, { 2 } }, { 1, { 2 } })
  end)

  pending("is not written yet")
end)
