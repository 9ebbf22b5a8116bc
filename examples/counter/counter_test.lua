-- The counter, pinned down in Lua: run with `composable test examples`.
local TestStore = require("composable.test").TestStore
local Counter = require("counter")

describe("counter", function()
  it("counts", function()
    local store = TestStore.new{ feature = Counter, state = { count = 0 } }
    store:send("increment", function(s) s.count = 1 end)
    store:send("increment", function(s) s.count = 2 end)
    store:send("decrement", function(s) s.count = 1 end)
    assert.same({ count = 1 }, store.state)
  end)

  it("loads a fact over HTTP", function()
    local store = TestStore.new{
      feature = Counter,
      env = { fact_url = "http://facts.test/" },
      http = function(request)
        assert.equal("http://facts.test/0", request.url)
        return { status = 200, body = "0 is a good number" }
      end,
    }
    store:send("fact_button_tapped", function(s) s.is_loading = true end)
    store:receive("fact_response", function(s)
      s.is_loading = nil
      s.fact = "0 is a good number"
    end)
  end)

  it("makes a fact offline after half a second", function()
    local store = TestStore.new{ feature = Counter }
    store:send("increment", function(s) s.count = 1 end)
    store:send("fact_button_tapped", function(s) s.is_loading = true end)
    store:advance(0.5)
    store:receive({ type = "fact_response", ok = true, body = "1 is a good number." }, function(s)
      s.is_loading = nil
      s.fact = "1 is a good number."
    end)
  end)
end)
