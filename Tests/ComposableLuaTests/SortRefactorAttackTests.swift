import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// Attacks on table.sort over a state's array after its copy, sort and write-back were shared
/// (TableLibrary.c: lk_sort_copy_of, lk_sort_in_copy, lk_sort_write_back): each program runs on
/// the state and under plain `lua5.4`, and what it leaves must be the same. (These held.)
@Suite struct SortRefactorAttackTests: AttackSuite {
  static let setup = """
    local recs = {}
    for i = 1, 12 do recs[i] = { n = (i * 7) % 12, id = i, sub = { v = i } } end
    local nums = {}
    for i = 1, 20 do nums[i] = (i * 13) % 17 end
    """

  /// Programs over `t` (a table `recs` of 12 records, `nums` 20 numbers, `c` a counter) that
  /// leave a string in `out`.
  static let programs: [String] = [
    // A reading order function (8+ elements) that raises at one comparison, under pcall: the
    // array is left as Lua's in-place sort leaves it.
    """
    local ok, e = pcall(table.sort, t.recs, function(a, b) if a.n == 3 and b.n > 5 then error("stop") end return a.n < b.n end)
    out = tostring(ok) .. ids(t.recs)
    """,
    // A counting order function (not only reading) that raises at the 15th comparison.
    """
    local k = 0
    local ok = pcall(table.sort, t.nums, function(a, b) k = k + 1 if k == 15 then error("stop") end return a < b end)
    out = tostring(ok) .. table.concat(t.nums, ",")
    """,
    // One that writes the state at each comparison, then raises: written back through the
    // proxy, the same order as Lua's.
    """
    local k = 0
    local ok = pcall(table.sort, t.recs, function(a, b) k = k + 1 t.c = t.c + 1 if k == 20 then error("stop") end return a.n > b.n end)
    out = tostring(ok) .. ids(t.recs) .. ":" .. t.c
    """,
    // Sorted by a nested field, then a record changed through the slot it moved to: one table,
    // never a copy.
    """
    table.sort(t.recs, function(a, b) return a.sub.v > b.sub.v end)
    t.recs[1].sub.v = 100
    out = ids(t.recs) .. ":" .. t.recs[1].sub.v .. ":" .. t.recs[1].id
    """,
    // An order function that is not one: the error, and where the array was left.
    """
    local ok, e = pcall(table.sort, t.nums, function(a, b) return true end)
    out = tostring(e):gsub("^.-: ", "") .. table.concat(t.nums, ",")
    """,
  ]

  static let helpers = """
    local function ids(list) local s = {} for i, r in ipairs(list) do s[i] = r.id end return table.concat(s, ",") end
    """

  @Test(arguments: programs.indices)
  func sortLeavesWhatPlainLuaLeaves(index: Int) throws {
    let program = Self.programs[index]
    let plain = try PlainLua.output(
      of: Self.setup + "\n" + Self.helpers + "\nlocal t = { recs = recs, nums = nums, c = 0 }\nlocal out\n"
        + program + "\nio.write(out)")
    let feature = try AttackFeature.make(
      AttackFeature.source(initialState: Self.setup + "\nreturn { recs = recs, nums = nums, c = 0 }"))
    Self.ok(feature, Self.helpers + "\nlocal t = state\nlocal out\n" + program + "\nstate.seen = out")
    #expect(try Self.seen(feature) == .string(LuaString(plain)), "program \(index)")
  }

  /// A sort that wrote the array, then an action that fails: everything rolls back, the
  /// records (moved, and one changed through its new slot) as they were.
  @Test func aSortInAFailedActionRollsBack() throws {
    let feature = try AttackFeature.make(
      AttackFeature.source(initialState: Self.setup + "\nreturn { recs = recs, nums = nums, c = 0 }"))
    for order in ["a.n < b.n", "a.n < b.n and a.sub.v ~= nil", "(function() state.c = state.c + 1 end)() or a.n < b.n"] {
      try Self.fails(
        feature,
        "table.sort(state.recs, function(a, b) return \(order) end) state.recs[1].sub.v = -1 table.sort(state.nums) error('later')"
      )
    }
  }
}
