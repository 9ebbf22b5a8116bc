/// The heavy reducers of issue 31, each a Lua chunk that returns `{ setup, step,
/// step_immutable }`: `setup()` makes the state, `step(state, i)` is the reducer's work on
/// mutable tables (what a feature does through the store, and plain Lua does on its own
/// tables), and `step_immutable(state, i)` the same work written the Redux way, returning a new
/// state that shares what did not change.
struct HeavyWorkload {
  let name: String
  /// Steps per timed round: about as long as each other on plain Lua.
  let steps: Int
  let source: String

  static let all: [HeavyWorkload] = [
    HeavyWorkload(
      name: "sort1k", steps: 40,
      source: todos + """
        function W.step(state, i)
          local todos = state.todos
          local todo = todos[i % #todos + 1]
          todo.done = not todo.done
          table.sort(todos, by_done_title)
        end
        function W.step_immutable(state, i)
          local k, todos = i % #state.todos + 1, {}
          for j, t in ipairs(state.todos) do
            todos[j] = j == k and { id = t.id, title = t.title, done = not t.done } or t
          end
          table.sort(todos, by_done_title)
          return { todos = todos }
        end
        return W
        """),
    HeavyWorkload(
      name: "resort1k", steps: 40,
      source: todos + """
        local function by_id_down(a, b) return a.id > b.id end
        function W.step(state, i)
          table.sort(state.todos, i % 2 == 0 and by_done_title or by_id_down)
        end
        function W.step_immutable(state, i)
          local todos = table.move(state.todos, 1, #state.todos, 1, {})
          table.sort(todos, i % 2 == 0 and by_done_title or by_id_down)
          return { todos = todos }
        end
        return W
        """),
    HeavyWorkload(
      name: "summary1k", steps: 400,
      source: todos + """
        local function summary(todos, i)
          local done, found, needle = 0, 0, tostring(i % 10)
          for _, t in ipairs(todos) do
            if t.done then done = done + 1 end
            if string.find(t.title, needle, 1, true) then found = found + 1 end
          end
          return done, found
        end
        function W.step(state, i)
          state.done_count, state.found = summary(state.todos, i)
        end
        function W.step_immutable(state, i)
          local done, found = summary(state.todos, i)
          return { todos = state.todos, done_count = done, found = found }
        end
        return W
        """),
    HeavyWorkload(
      name: "toggle_all1k", steps: 400,
      source: todos + """
        function W.step(state)
          for _, t in ipairs(state.todos) do t.done = not t.done end
        end
        function W.step_immutable(state)
          local todos = {}
          for j, t in ipairs(state.todos) do
            todos[j] = { id = t.id, title = t.title, done = not t.done }
          end
          return { todos = todos }
        end
        return W
        """),
    HeavyWorkload(
      name: "insert1k", steps: 3_000,
      source: todos + """
        -- A new todo at the top; the last one goes, so the list keeps its length.
        function W.step(state, i)
          local todos = state.todos
          table.insert(todos, 1, { id = 1000 + i, title = "New " .. i, done = false })
          todos[#todos] = nil
        end
        function W.step_immutable(state, i)
          local old = state.todos
          local todos = table.move(old, 1, #old - 1, 2, {})
          todos[1] = { id = 1000 + i, title = "New " .. i, done = false }
          return { todos = todos }
        end
        return W
        """),
    HeavyWorkload(
      name: "remove1k", steps: 3_000,
      source: todos + """
        -- The 500th todo goes; a new one comes at the end, so the list keeps its length.
        function W.step(state, i)
          local todos = state.todos
          table.remove(todos, 500)
          todos[#todos + 1] = { id = 1000 + i, title = "New " .. i, done = false }
        end
        function W.step_immutable(state, i)
          local old = state.todos
          local todos = table.move(old, 1, 499, 1, {})
          table.move(old, 501, #old, 500, todos)
          todos[#todos + 1] = { id = 1000 + i, title = "New " .. i, done = false }
          return { todos = todos }
        end
        return W
        """),
    HeavyWorkload(
      name: "tick200", steps: 3_000,
      source: """
        local W = {}
        function W.setup()
          local entities = {}
          for n = 1, 200 do
            entities[n] = { x = n, y = -n, vx = n % 7 - 3, vy = n % 5 - 2, hp = 100 }
          end
          return { entities = entities }
        end
        -- Four reads and two writes an entity.
        function W.step(state)
          for _, e in ipairs(state.entities) do
            e.x = e.x + e.vx
            e.y = e.y + e.vy
          end
        end
        function W.step_immutable(state)
          local entities = {}
          for n, e in ipairs(state.entities) do
            entities[n] = { x = e.x + e.vx, y = e.y + e.vy, vx = e.vx, vy = e.vy, hp = e.hp }
          end
          return { entities = entities }
        end
        return W
        """),
    HeavyWorkload(
      name: "nested1k", steps: 20_000,
      source: """
        local W = {}
        function W.setup()
          local users = {}
          for n = 1, 1000 do
            users["u" .. n] = {
              email = "user" .. n .. "@example.com",
              profile = { name = "User " .. n, age = 20 + n % 50,
                settings = { theme = "light", lang = "en" } },
            }
          end
          return { users = users }
        end
        -- Five reads down the path, then the write at its end.
        function W.step(state, i)
          local id = "u" .. (i % 1000 + 1)
          local _ = state.users[id].email, state.users[id].profile.name,
            state.users[id].profile.age, state.users[id].profile.settings.lang
          local theme = state.users[id].profile.settings.theme
          state.users[id].profile.settings.theme = theme == "light" and "dark" or "light"
        end
        function W.step_immutable(state, i)
          local id = "u" .. (i % 1000 + 1)
          local user = state.users[id]
          local _ = user.email, user.profile.name, user.profile.age, user.profile.settings.lang
          local settings = user.profile.settings
          local users = {}
          for k, v in pairs(state.users) do users[k] = v end
          users[id] = {
            email = user.email,
            profile = { name = user.profile.name, age = user.profile.age, settings = {
              theme = settings.theme == "light" and "dark" or "light", lang = settings.lang } },
          }
          return { users = users }
        end
        return W
        """),
  ]

  /// 1,000 todos, in an order no sort leaves them in, and the order `sort1k` sorts by.
  static let todos = """
    local W = {}
    function W.setup()
      local todos = {}
      for id = 1, 1000 do
        todos[id] = { id = id, title = string.format("Todo %04d", id * 7919 % 1000),
          done = id % 3 == 0 }
      end
      return { todos = todos }
    end
    local function by_done_title(a, b)
      if a.done ~= b.done then return not a.done end
      if a.title ~= b.title then return a.title < b.title end
      return a.id < b.id
    end

    """

  /// A chunk that returns `canon(value)`: the value as one string, keys sorted, so two states
  /// that are equal as data read the same (`%.17g` for floats).
  static let canon = """
    local function canon(v)
      local t = type(v)
      if t == "string" then return string.format("%q", v) end
      if t == "number" then
        return math.type(v) == "integer" and tostring(v) or string.format("%.17g", v)
      end
      if t ~= "table" then return tostring(v) end
      local keys = {}
      for k in pairs(v) do keys[#keys + 1] = k end
      table.sort(keys, function(a, b)
        if type(a) ~= type(b) then return type(a) < type(b) end
        return a < b
      end)
      local parts = {}
      for n, k in ipairs(keys) do parts[n] = "[" .. canon(k) .. "]=" .. canon(v[k]) end
      return "{" .. table.concat(parts, ",") .. "}"
    end
    """
}
