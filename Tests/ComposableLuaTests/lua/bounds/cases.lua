-- Every function the feature sandbox reaches, and calls of each with extreme arguments, for
-- LibraryBoundsEnumerationTests: returns { functions = { "path", ... }, cases = { { name =
-- "...", run = function() ... end }, ... } }. Each case runs as a call of its own, under a
-- small budget, and must return or raise within it.
local json = require("composable.json")

-- What the sandbox reaches: globals, and the functions of every table reached from them and
-- from the host's libraries, by path.
local functions = require("reachable")(_G)

-- Extreme arguments, each made afresh for each call (a call may change the table it is given).
local maxi, mini = math.maxinteger, math.mininteger
local big = string.rep("a", 1 << 20)
local function huge_length() return setmetatable({}, { __len = function() return maxi end }) end
local function huge_everything(length)
  return setmetatable({}, {
    __len = function() return length or maxi end,
    __index = function() return "x" end,
    __newindex = function() end,
  })
end
local function endless_index()
  return setmetatable({}, { __index = function() while true do end end,
    __newindex = function() while true do end end, __len = function() return 3 end })
end
local function endless_length()
  return setmetatable({}, { __len = function() while true do end end })
end
local function value(v) return function() return v end end
local arguments = {
  value(maxi), value(mini), value(-1), value(0), value(1), value(2.5), value(0 / 0),
  value(math.huge), value(-math.huge), value(""), value(big), value("%"), value("["),
  value("((("), value("a*"), value(true), value(nil), function() return {} end,
  function() return { 1, 2, 3 } end, huge_length, huge_everything, endless_index,
  endless_length, value(print), function() return coroutine.create(function() end) end,
  value(json.null),
}
local count = #arguments

-- A seeded choice of argument lists for each function (math.random is not in the sandbox).
local seed = 12345
local function next_random(n)
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed % n + 1
end

local cases = {}
local function case(name, run) cases[#cases + 1] = { name = name, run = run } end
local names = {}
for _, entry in ipairs(functions) do
  names[#names + 1] = entry.path
  local f = entry.f
  if entry.path ~= "coroutine.yield" then  -- outside a coroutine: Lua's error, nothing more
    case(entry.path .. "()", function() return f() end)
  end
  for _ = 1, 48 do
    local arity = next_random(4)
    local chosen, labels = {}, {}
    for i = 1, arity do
      local k = next_random(count)
      chosen[i] = arguments[k]
      labels[i] = "#" .. k
    end
    case(entry.path .. "(" .. table.concat(labels, ", ") .. ")", function()
      local made = {}
      for i = 1, arity do made[i] = chosen[i]() end
      return f(table.unpack(made, 1, arity))
    end)
  end
end

-- The calls the issue names, and their kin.
local named = {
  { "table.remove over __len = maxinteger",
    function() return table.remove(huge_length(), 1) end },
  { "table.insert over __len = maxinteger - 1",
    function() table.insert(huge_everything(maxi - 1), 1, 0) end },
  { "table.sort over __len = maxinteger", function() table.sort(huge_everything()) end },
  { "table.sort over __len = 2^30", function()
      table.sort(setmetatable({}, { __len = function() return 1 << 30 end,
        __index = function(_, k) return -k end, __newindex = function() end }))
    end },
  { "table.concat over __len = maxinteger",
    function() return table.concat(huge_everything()) end },
  { "table.unpack a long range", function() return table.unpack({}, 1, 1e7) end },
  { "table.move an endless range", function() return table.move({}, 1, maxi, 2) end },
  { "table.move from the bottom", function() return table.move({}, mini, -2, 1) end },
  { "table.move backwards over __len",
    function() return table.move(huge_everything(), 1, maxi - 1, 2) end },
  { "string.rep of nothing", function() return string.rep("", maxi) end },
  { "string.rep past the cap", function() return string.rep("x", 1 << 30) end },
  { "string.rep past a string", function() return string.rep("x", maxi) end },
  { "string.byte of a whole string", function() return select("#", string.byte(big, 1, -1)) end },
  { "string.find plain, n times m", function()
      return string.find(big, string.rep("a", 4096) .. "b", 1, true)
    end },
  { "string.find exploding pattern", function()
      return string.rep("a", 40):find(string.rep("a?", 40) .. string.rep("a", 40))
    end },
  { "string.gsub over a long string", function() return string.gsub(big, "a", "bb") end },
  { "utf8.len of a long string, in a loop", function()
      for _ = 1, 1e6 do utf8.len(big) end
    end },
  { "utf8.offset far", function() return utf8.offset(big, maxi) end },
  { "utf8.codepoint of a whole string",
    function() return select("#", utf8.codepoint(big, 1, -1)) end },
  { "utf8.codes over continuation bytes", function()
      local s = string.rep("\x80", 1 << 20) .. "a"
      local f = utf8.codes(s)
      for _ = 1, 1e6 do f(s, 0) end
    end },
  { "tonumber of a long numeral, in a loop", function()
      local s = string.rep("1", 1 << 20)
      for _ = 1, 1e6 do tonumber(s) end
    end },
  { "load of a long chunk", function() return load(string.rep("local x = 1 ", 1 << 18)) end },
  { "load from an endless reader", function() return load(function() return "--" end) end },
  -- Spaces: options that make nothing, so only the format is work.
  { "string.pack of a long format, in a loop", function()
      local format = string.rep(" ", 1 << 20)
      for _ = 1, 1e6 do string.pack(format) end
    end },
  { "string.unpack of a long format, in a loop", function()
      local format = string.rep(" ", 1 << 20)
      for _ = 1, 1e6 do string.unpack(format, "") end
    end },
  { "string.packsize of a long format, in a loop", function()
      local format = string.rep(" ", 1 << 20)
      for _ = 1, 1e6 do string.packsize(format) end
    end },
  { "xpcall with an endless handler", function()
      return xpcall(function() while true do end end, function() while true do end end)
    end },
  { "coroutine.wrap with an endless __close", function()
      return pcall(coroutine.wrap(function()
        local _ <close> = setmetatable({}, { __close = function() while true do end end })
        while true do end
      end))
    end },
  { "coroutine.close nested", function()
      local function nest(n)
        local co = coroutine.create(function()
          local _ <close> = setmetatable({}, { __close = function() if n > 0 then
            coroutine.close(nest(n - 1)) end end })
          coroutine.yield()
        end)
        coroutine.resume(co)
        return co
      end
      return coroutine.close(nest(1000))
    end },
  { "pcall around an endless loop", function()
      pcall(function() while true do end end)
      while true do end
    end },
  { "a coroutine around an endless loop", function()
      pcall(coroutine.wrap(function() while true do end end))
      return "went on"
    end },
  { "json.encode of a wide table", function()
      local t = {}
      for i = 1, 1e6 do t[i] = big end
      return json.encode(t)
    end },
  { "json.decode of a deep text", function() return json.decode(string.rep("[", 1e6)) end },
}
for _, entry in ipairs(named) do case(entry[1], entry[2]) end

return { functions = names, cases = cases }
