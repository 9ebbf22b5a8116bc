import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// `table.sort` on a state's array with an order function that can only read (ReadingFunctions.c)
/// gives it the real elements: reads are the VM's own lookups. Sorts must still come out as
/// under `lua5.4` (orders, errors, the order an error leaves), roll back, stop at the budget, and
/// no real table may reach code that could keep or write it: a strings' metatable a feature
/// changed, or an upvalue that is a table, gives the order function proxies again.
@Suite struct SortWithReadingOrderTests {
  /// Sorts of `S.list` with order functions that read only, after random changes of its
  /// elements; a transcript line per sort: which order, whether it raised (and the message,
  /// without its place), the ids in order.
  static let harness = """
    local function harness(S, seed, nops)
      local r = seed
      local function rand(n)
        r = (r * 1103515245 + 12345) % 2147483648
        return r % n + 1
      end
      local orders = {
        function(a, b) return a.n < b.n end,
        function(a, b)
          if a.done ~= b.done then return not a.done end
          if a.t ~= b.t then return a.t < b.t end
          return a.id < b.id
        end,
        function(a, b) return a.id > b.id end,
        function(a, b) return a.n <= b.n end,
        function(a, b) return a.t .. a.id < b.t .. b.id end,
        function(a, b) return #a.t < #b.t end,
        function(a, b) return a.n * 2 - b.n < 0.5 end,
        function(a, b) return a.x < b.x end,
        function(a, b) return a.sub.v < b.sub.v end,
        function(a, b) return a.sub < b.sub end,
        function(a, b) return a.n > 4 == (b.n > 4) and a.id < b.id or a.n > 4 end,
      }
      local out = {}
      for op = 1, nops do
        local list = S.list
        local kind = rand(4)
        if kind == 1 then
          local e = list[rand(#list)]
          e.n, e.t = rand(10), string.char(96 + rand(5))
          if rand(3) == 1 then e.x = rand(5) else e.x = nil end
        elseif kind == 2 and #list < 40 then
          table.insert(list, rand(#list + 1),
            { id = 1000 + op, n = rand(10), t = "q", done = rand(2) == 1, sub = { v = rand(9) } })
        end
        local o = rand(#orders)
        local ok, err = pcall(table.sort, list, orders[o])
        local ids = {}
        for i = 1, #list do ids[i] = list[i].id end
        err = ok and "" or tostring(err):gsub("^[^:]*:%d+: ", "")
        out[#out + 1] = o .. " " .. tostring(ok) .. " " .. err .. " " .. table.concat(ids, ",")
      end
      return table.concat(out, "\\n")
    end
    local function init()
      local list = {}
      for id = 1, 25 do
        list[id] = { id = id, n = id * 7 % 10, t = string.char(97 + id % 5), done = id % 3 == 0,
          sub = { v = id * 5 % 9 }, x = id % 4 ~= 0 and id or nil }
      end
      return { list = list }
    end

    """

  static let featureSource =
    harness + """
      return {
        initial_state = init,
        reduce = function(state, action)
          state.out = harness(state, action.seed, action.nops)
          if action.fail then error("rolled back") end
        end,
      }
      """

  static let plainDriver =
    harness + """
      for seed = tonumber(arg[1]), tonumber(arg[2]) do
        io.write("==", seed, "\\n", harness(init(), seed, tonumber(arg[3])), "\\n")
      end
      """

  @Test func sortsMatchLua54AndRollBack() throws {
    try expectHarnessMatchesLua54(
      featureSource: Self.featureSource, plainDriver: Self.plainDriver, seeds: 30, nops: 30)
  }

  /// Tables that came from Swift arrays carry the array marker, whose name Lua's messages use:
  /// an order function that raises on them says "table", as it would through proxies.
  @Test func anErrorOnMarkedArraysNamesThemTables() throws {
    let feature = try LuaFeature(
      source: """
        return {
          initial_state = function() return { list = {} } end,
          reduce = function(state, action)
            if action.type == "set" then
              state.list = action.list
            else
              local ok, err = pcall(table.sort, state.list, function(a, b) return a.tags < b.tags end)
              state.err = tostring(err):gsub("^[^:]*:%d+: ", "")
            end
          end,
        }
        """, file: "marked.lua")
    _ = try feature.step([
      "type": "set",
      // Ten: a sort of fewer than eight elements does not look at its order function.
      "list": .table(LuaTable(array: (0..<10).map { ["tags": [.integer($0 % 3)]] })),
    ])
    _ = try feature.step("sort")
    #expect(try feature.state()["err"] == "attempt to compare two table values")
  }

  /// A feature that gave strings a metamethod, or the string table a metatable, could be handed
  /// an element by it: the order function gets proxies then, and a write through what the
  /// metamethod kept is journaled (rolled back with its action).
  @Test func aChangedStringMetatableGetsProxies() throws {
    for (setup, order) in [
      (
        "getmetatable('').__lt = function(a, b) kept = a return false end",
        "function(a, b) return a < 'm' end"
      ),
      (
        "getmetatable('').__concat = function(a, b) kept = b return '' end",
        "function(a, b) return ('x' .. a) < ('x' .. b) end"
      ),
      (
        "setmetatable(string, { __index = function(s, k) kept = k end })",
        "function(a, b) return ('x')[a] == nil and a.n < b.n end"
      ),
    ] {
      let feature = try LuaFeature(
        source: """
          local kept
          return {
            initial_state = function() return { list = { { n = 2 }, { n = 1 } } } end,
            reduce = function(state, action)
              if action.type == "sort" then
                \(setup)
                pcall(table.sort, state.list, \(order))
              elseif action.type == "write" then
                kept.n = 99
                error("rolled back")
              else
                state.kept = kept ~= nil
              end
            end,
          }
          """, file: "strings.lua")
      _ = try feature.step("sort")
      _ = try feature.step("check")
      #expect(try feature.state()["kept"] == true, "\(setup)")
      let before = try feature.state()
      #expect(throws: LuaFeatureError.self) { try feature.step("write") }
      #expect(try feature.state() == before, "\(setup)")
    }
  }

  /// The order function's comparisons count against the instruction budget (once the watchdog
  /// arms the count hook of a call that runs long): sorts past it stop, and the action's writes
  /// (and the sorts') are rolled back.
  @Test func aSortPastTheBudgetStopsAndRollsBack() throws {
    let feature = try LuaFeature(
      source: """
        return {
          initial_state = function()
            local list = {}
            for i = 1, 5000 do list[i] = { n = (i * 7919) % 5000 } end
            return { list = list, touched = false }
          end,
          reduce = function(state, action)
            state.touched = true
            for i = 1, 1000 do
              table.sort(state.list, i % 2 == 0 and function(a, b) return a.n < b.n end
                or function(a, b) return a.n > b.n end)
            end
          end,
        }
        """, file: "budget.lua", limits: LuaLimits(memory: nil, instructions: 1_000_000))
    let before = try feature.state()
    do {
      _ = try feature.step("sort")
      Issue.record("the sort ran within the budget")
    } catch {
      #expect("\(error)".contains("instruction"), "\(error)")
    }
    #expect(try feature.state() == before)
  }
}
