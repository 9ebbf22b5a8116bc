import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// `table.sort` on a state's array with an order function that may do more than read (it counts
/// in an upvalue, reads the array being sorted, writes its slots, writes other state) sorts in
/// place through the array's proxy: what the function sees, and what it changes, is what it
/// would see and change under `lua5.4`. (A sort in a copy showed it the array as it was before
/// the sort and lost its writes to the array.)
@Suite struct SortWithWritingOrderTests {
  /// Sorts of `S.list` (numbers, or tables `{ id, n }`) by order functions that do more than
  /// read; a transcript line per sort: which order, whether it raised (and the message without
  /// its place), the comparisons made, the list after, what it wrote elsewhere.
  static let harness = """
    local function harness(S, seed, nops)
      local r = seed
      local function rand(n)
        r = (r * 1103515245 + 12345) % 2147483648
        return r % n + 1
      end
      local function key(v) return type(v) == "table" and v.n or v end
      local function show(list)
        local out = {}
        for i = 1, #list do
          local v = list[i]
          out[i] = type(v) == "table" and ("#" .. v.id .. ":" .. v.n) or tostring(v)
        end
        return table.concat(out, ",")
      end
      local count, seen, at, value
      local orders = {
        -- counts, and writes a slot of the array at one comparison
        function(a, b)
          count = count + 1
          if count == at then S.list[#S.list] = value end
          return key(a) < key(b)
        end,
        -- reads the array while it is sorted
        function(a, b)
          count = count + 1
          if count % 5 == 0 then seen[#seen + 1] = show(S.list) end
          return key(a) < key(b)
        end,
        -- writes other state
        function(a, b)
          count = count + 1
          S.compared = (S.compared or 0) + 1
          return key(a) > key(b)
        end,
        -- swaps two slots itself, now and then
        function(a, b)
          count = count + 1
          if count % 7 == 0 then
            local l = S.list
            l[1], l[2] = l[2], l[1]
          end
          return key(a) < key(b)
        end,
        -- writes an element's field (the key it sorts by)
        function(a, b)
          count = count + 1
          if count == at and type(a) == "table" then a.n = value end
          return key(a) < key(b)
        end,
        -- grows the array while it is sorted
        function(a, b)
          count = count + 1
          if count == at then table.insert(S.list, value) end
          return key(a) < key(b)
        end,
      }
      local out = {}
      for op = 1, nops do
        local tables = rand(2) == 1
        local list = {}
        for i = 1, rand(30) + 1 do
          list[i] = tables and { id = i, n = rand(9) } or rand(50)
        end
        S.list = list
        count, seen, at, value = 0, {}, rand(40), rand(60)
        if tables then value = { id = 99, n = value % 10 } end
        local o = rand(#orders)
        local ok, err = pcall(table.sort, S.list, orders[o])
        err = ok and "" or tostring(err):gsub("^[^:]*:%d+: ", "")
        out[#out + 1] = o .. " " .. tostring(ok) .. " " .. err .. " " .. count .. " " ..
          show(S.list) .. " | " .. table.concat(seen, " / ") .. " | " .. tostring(S.compared)
      end
      return table.concat(out, "\\n")
    end

    """

  static let featureSource =
    harness + """
      return {
        initial_state = function() return { list = {} } end,
        reduce = function(state, action)
          state.out = harness(state, action.seed, action.nops)
          if action.fail then error("rolled back") end
        end,
      }
      """

  static let plainDriver =
    harness + """
      for seed = tonumber(arg[1]), tonumber(arg[2]) do
        io.write("==", seed, "\\n", harness({ list = {} }, seed, tonumber(arg[3])), "\\n")
      end
      """

  @Test func whatTheOrderFunctionSeesAndWritesIsLua54s() throws {
    try expectHarnessMatchesLua54(
      featureSource: Self.featureSource, plainDriver: Self.plainDriver, seeds: 40, nops: 20)
  }

  /// The attacker's case: a write to the array at the third comparison stays, as under lua5.4.
  @Test func aWriteToTheArrayDuringTheSortStays() throws {
    let feature = try LuaFeature(
      source: """
        return {
          initial_state = function() return { a = { 5, 4, 3, 2, 1 } } end,
          reduce = function(s, action)
            local n = 0
            table.sort(s.a, function(x, y)
              n = n + 1
              if n == 3 then s.a[5] = 0 end
              return x < y
            end)
            s.result = table.concat(s.a, ",") .. " after " .. n
          end,
        }
        """, file: "sortw.lua")
    _ = try feature.step("sort")
    #expect(try feature.state()["result"] == "1,2,3,0,4 after 9")
  }
}
