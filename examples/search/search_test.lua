local TestStore = require("composable.test").TestStore
local Search = require("search")

local function results(...) return { query = "", results = { ... } } end

describe("search", function()
  it("searches once the typing pauses", function()
    local requests = {}
    local store = TestStore.new{
      feature = Search,
      env = { search_url = "http://search.test/search" },
      http = function(request)
        table.insert(requests, request.url)
        return { status = 200, json = results("blueberry") }
      end,
    }
    store:send({ type = "query_changed", query = "b" }, function(s)
      s.query = "b"
      s.searching = true
    end)
    store:advance(0.1)
    store:send({ type = "query_changed", query = "blue" }, function(s) s.query = "blue" end)
    store:advance(0.3)
    store:receive("results_received", function(s)
      s.searching = false
      s.results = { "blueberry" }
    end)
    assert.same({ "http://search.test/search?q=blue" }, requests)
  end)

  it("cancels the request in flight when the query changes", function()
    local store = TestStore.new{
      feature = Search,
      env = { search_url = "http://search.test/search" },
      http = function(request)
        if request.url:find("slow") then
          return { status = 200, json = results("too late"), delay = 2 }
        end
        return { status = 200, json = results("lime") }
      end,
    }
    store:send({ type = "query_changed", query = "slow" }, function(s)
      s.query = "slow"
      s.searching = true
    end)
    store:advance(0.3)  -- the slow request is in flight now
    store:send({ type = "query_changed", query = "lime" }, function(s) s.query = "lime" end)
    store:advance(0.3)
    store:receive("results_received", function(s) s.searching = false; s.results = { "lime" } end)
    store:advance(5)  -- the slow answer never arrives: its request was cancelled
    store:finish()
  end)

  it("puts errors in the state", function()
    local store = TestStore.new{
      feature = Search,
      env = { search_url = "http://search.test/search" },
      http = function() return { status = 500, body = "down" } end,
    }
    store:send({ type = "query_changed", query = "fig" }, function(s)
      s.query = "fig"
      s.searching = true
    end)
    store:advance(0.3)
    store:receive("results_received", function(s) s.searching = false; s.error = "HTTP 500" end)
  end)
end)
