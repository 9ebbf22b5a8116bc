-- Splits a Lua chunk into its top-level statements and rewrites it so that each runs on its
-- own, protected, reporting how it ended: `__statement(n, line, function(...) S end, ...)`.
-- Top-level locals are declared once at the start of the chunk and each `local` becomes an
-- assignment, so a statement still sees the locals of the ones before it. Line numbers are
-- kept: each statement stays on its lines. With `in_state`, every table constructor `{...}`
-- becomes `(__S{...})`, so the runner can store each table in a feature's state as it is made.
--
-- Both sides of a comparison run the same rewritten text, so what the rewriting changes
-- (a `<close>` local no longer closed, two top-level locals of one name made one) changes
-- both alike.

local M = {}

local keywords = {}
for word in ([[and break do else elseif end false for function goto if in local nil not or
  repeat return then true until while]]):gmatch("%a+") do keywords[word] = true end

-- Tokens: { kind = "name"|"keyword"|"number"|"string"|"symbol", text, line, first, last },
-- `first`/`last` byte positions in the source (comments and spaces are between tokens).
local function tokenize(source)
  local tokens, i, line, n = {}, 1, 1, #source
  local function add(kind, first, last)
    tokens[#tokens + 1] = { kind = kind, text = source:sub(first, last), line = line,
      first = first, last = last }
  end
  local function count_lines(first, last)
    local _, lines = source:sub(first, last):gsub("\n", "")
    line = line + lines
  end
  local function long_bracket(at)  -- the end of a long bracket opening at `at`, or nil
    local equals = source:match("^%[(=*)%[", at)
    if not equals then return nil end
    local close = "]" .. equals .. "]"
    local _, stop = source:find(close, at + #equals + 2, true)
    return stop or error("unfinished long bracket at line " .. line)
  end
  while i <= n do
    local c = source:sub(i, i)
    if c == "\n" then
      line, i = line + 1, i + 1
    elseif c:match("%s") then
      i = i + 1
    elseif source:sub(i, i + 1) == "--" then
      local stop = long_bracket(i + 2)
      if stop then
        count_lines(i, stop)
        i = stop + 1
      else
        local newline = source:find("\n", i, true)
        i = newline or n + 1
      end
    elseif c:match("[%a_]") then
      local stop = select(2, source:find("^[%w_]*", i + 1))
      local word = source:sub(i, stop)
      add(keywords[word] and "keyword" or "name", i, stop)
      i = stop + 1
    elseif c:match("%d") or (c == "." and source:sub(i + 1, i + 1):match("%d")) then
      local stop
      if source:match("^0[xX]", i) then
        stop = select(2, source:find("^0[xX][%x%.]*", i))
        while source:match("^[pP][%+%-]?", stop + 1) do
          stop = select(2, source:find("^[pP][%+%-]?%x*", stop + 1))
        end
      else
        stop = select(2, source:find("^[%d%.]*", i))
        if source:match("^[eE]", stop + 1) then
          stop = select(2, source:find("^[eE][%+%-]?%d*", stop + 1))
        end
      end
      add("number", i, stop)
      i = stop + 1
    elseif c == '"' or c == "'" then
      local j = i + 1
      while true do
        local d = source:sub(j, j)
        if d == "" then error("unfinished string at line " .. line) end
        if d == "\\" then
          if source:sub(j + 1, j + 1) == "z" then
            j = select(2, source:find("^z%s*", j + 1)) + 1
          else
            j = j + 2
          end
        elseif d == c then
          break
        else
          j = j + 1
        end
      end
      add("string", i, j)
      count_lines(i, j)
      i = j + 1
    elseif c == "[" and long_bracket(i) then
      local stop = long_bracket(i)
      add("string", i, stop)
      count_lines(i, stop)
      i = stop + 1
    else
      local three, two = source:sub(i, i + 2), source:sub(i, i + 1)
      local width = (three == "...") and 3
        or (({ ["=="] = 1, ["~="] = 1, ["<="] = 1, [">="] = 1, ["//"] = 1, ["::"] = 1,
          ["<<"] = 1, [">>"] = 1, [".."] = 1 })[two] and 2) or 1
      add("symbol", i, i + width - 1)
      i = i + width
    end
  end
  return tokens
end

-- Whether a token can end an expression: a statement may start after it.
local function ends_expression(token)
  if token == nil then return true end
  if token.kind == "name" or token.kind == "number" or token.kind == "string" then
    return true
  end
  if token.kind == "keyword" then
    return token.text == "end" or token.text == "true" or token.text == "false"
      or token.text == "nil"
  end
  return token.text == ")" or token.text == "]" or token.text == "}" or token.text == "..."
end

local statement_keywords = { ["local"] = true, ["if"] = true, ["while"] = true, ["for"] = true,
  ["repeat"] = true, ["do"] = true, ["return"] = true, ["break"] = true, ["goto"] = true }

-- The top-level statements: lists of token indices { first, last }.
local function statements(tokens)
  local result, depth, brackets, start = {}, 0, 0, nil
  local loop_head = 0  -- `while`/`for` whose `do` is not a block of its own
  -- A label joins the statement before it, and so does what follows a label: a `goto` in one
  -- statement must see the label it jumps to, in the same function.
  local after_label = false
  local function close(at)
    if start then result[#result + 1] = { start, at } end
    start = nil
  end
  for index, token in ipairs(tokens) do
    local text, previous = token.text, tokens[index - 1]
    if depth == 0 and brackets == 0 then
      local begins = (token.kind == "keyword" and statement_keywords[text])
        or text == "::" or text == ";"
        or ((token.kind == "name" or text == "function") and ends_expression(previous))
      local joins = text == "::" or after_label
      if begins and start and not joins and not (text == "do" and loop_head > 0) then
        close(index - 1)
      end
      if begins then after_label = text == "::" end
      if text == ";" then
        start = nil
        goto continue
      end
      start = start or index
    end
    if token.kind == "symbol" then
      if text == "(" or text == "[" or text == "{" then brackets = brackets + 1
      elseif text == ")" or text == "]" or text == "}" then brackets = brackets - 1 end
    elseif token.kind == "keyword" then
      if text == "while" or text == "for" then
        loop_head = loop_head + 1
      elseif text == "do" then
        if loop_head > 0 then loop_head = loop_head - 1 end
        depth = depth + 1
      elseif text == "function" or text == "if" or text == "repeat" then
        depth = depth + 1
      elseif text == "end" or text == "until" then
        depth = depth - 1
      end
    end
    ::continue::
  end
  close(#tokens)
  return result
end

function M.transform(source, in_state)
  local shebang = ""
  if source:sub(1, 1) == "#" then  -- Lua skips a first line that starts with '#'
    shebang = source:match("^[^\n]*")
    source = (" "):rep(#shebang) .. source:sub(#shebang + 1)
  end
  local tokens = tokenize(source)
  local parts, hoisted, seen = {}, {}, {}
  local function hoist(name)
    if not seen[name] then
      seen[name] = true
      hoisted[#hoisted + 1] = name
    end
  end
  -- Constructors given straight to setmetatable (`setmetatable({}, { __index = f })`) stay
  -- plain tables: a state table has no metatable, and is no metatable (Lua reads metatables
  -- raw), so storing them would only test that, everywhere.
  local plain = {}
  if in_state then
    local open, parens = {}, {}
    for k, token in ipairs(tokens) do
      local text, previous = token.text, tokens[k - 1] and tokens[k - 1].text
      if text == "(" then
        parens[#parens + 1] = previous == "setmetatable"
      elseif text == ")" then
        table.remove(parens)
      elseif text == "{" then
        local argument = parens[#parens] and (previous == "(" or previous == ",")
        open[#open + 1] = { k, argument }
        parens[#parens + 1] = false  -- a constructor's own commas are not arguments
      elseif text == "}" then
        table.remove(parens)
        local opened = table.remove(open)
        if opened and opened[2] then plain[opened[1]], plain[k] = true, true end
      end
    end
  end
  local position = 1  -- source copied up to here
  local function text_of(first, last)  -- tokens first..last with what is between them
    local out = {}
    for k = first, last do
      local token = tokens[k]
      local piece = token.text
      if in_state and token.text == "{" and not plain[k] then piece = "(__S{" end
      if in_state and token.text == "}" and not plain[k] then piece = "})" end
      out[#out + 1] = source:sub(k == first and token.first or tokens[k - 1].last + 1,
        token.first - 1)
      out[#out + 1] = piece
    end
    return table.concat(out)
  end
  local list = statements(tokens)
  for n, range in ipairs(list) do
    local first, last = range[1], range[2]
    parts[#parts + 1] = source:sub(position, tokens[first].first - 1)
    local body
    if tokens[first].text == "local" and tokens[first + 1].text == "function" then
      local name = tokens[first + 2].text
      hoist(name)
      body = name .. " = function" .. text_of(first + 3, last)
    elseif tokens[first].text == "local" then
      local k, names = first + 1, {}
      while true do
        names[#names + 1] = tokens[k].text
        hoist(tokens[k].text)
        k = k + 1
        if tokens[k] and tokens[k].text == "<" then k = k + 3 end  -- an attribute
        if not (tokens[k] and tokens[k].text == ",") or k > last then break end
        k = k + 1
      end
      if k <= last and tokens[k].text == "=" then
        body = table.concat(names, ", ") .. " " .. text_of(k, last)
      else
        local nils = {}
        for i = 1, #names do nils[i] = "nil" end
        body = table.concat(names, ", ") .. " = " .. table.concat(nils, ", ")
      end
    else
      body = text_of(first, last)
    end
    parts[#parts + 1] = ("__statement(%d, %d, function(...) %s end, ...)")
      :format(n, tokens[first].line, body)
    position = tokens[last].last + 1
  end
  parts[#parts + 1] = source:sub(position)
  local prefix = #hoisted > 0 and ("local " .. table.concat(hoisted, ", ") .. "; ") or ""
  local body = table.concat(parts)
  if shebang ~= "" then  -- its line (spaces now) goes back; the rest stays on its lines
    return shebang .. body:match("^[^\n]*(.*)$"):gsub("^\n", "\n" .. prefix, 1), #list
  end
  return prefix .. body, #list
end

return M
