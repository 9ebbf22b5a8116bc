-- File effects answered by the test: a table of contents, or a function.
local TestStore = require("composable.test").TestStore
local Notes = require("notes")

describe("files in tests", function()
  it("reads from a table of contents", function()
    local store = TestStore.new{ feature = Notes, files = { ["notes.txt"] = "buy milk" } }
    store:send("load")
    store:receive("loaded", function(s) s.text = "buy milk" end)
  end)

  it("answers with a function, which sees every operation", function()
    local written = {}
    local store = TestStore.new{
      feature = Notes,
      files = function(request)
        if request.operation == "write" then written[request.path] = request.contents; return end
        if request.operation == "read" then return written[request.path] end
      end,
    }
    store:send({ type = "save", text = "call mom" }, function(s) s.text = "call mom" end)
    store:finish()
    assert.same({ ["notes.txt"] = "call mom" }, written)
    store:send("load")
    store:receive("loaded", function(s) s.text = "call mom" end)
  end)

  it("turns a missing file into a failure action", function()
    local store = TestStore.new{ feature = Notes, files = function() return nil end }
    store:send("load")
    store:receive("loaded", function(s) s.text = "error: notes.txt: no such file" end)
  end)
end)
