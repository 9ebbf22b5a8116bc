import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// A feature's module is a Lua module: besides `reduce` and the fields the host reads, it may
/// hold anything a module may, and `lua5.4` loads it. The loader read the whole returned table
/// as a snapshot, so a class whose `__index` is itself (Lua's usual class idiom) kept the
/// feature from loading ("cycle: the table contains itself"). It reads the fields it needs now.
@Suite struct ModuleTablesTests {
  /// What a module may hold beside its feature's fields, each as a Lua expression.
  static let extras: [(name: String, value: String)] = [
    ("a class", "(function() local C = {} C.__index = C return C end)()"),
    ("a table inside itself", "(function() local t = {} t.me = t return t end)()"),
    ("two tables inside each other", "(function() local a, b = {}, {} a.b = b b.a = a return a end)()"),
    ("an object", "setmetatable({}, { __index = function() error('no') end })"),
    ("a table with a __pairs", "setmetatable({}, { __pairs = function() error('no') end })"),
    ("json.null", "require('composable.json').null"),
    ("a coroutine", "coroutine.create(function() end)"),
    ("a table 300 levels deep",
     "(function() local t = {} for _ = 1, 300 do t = { t } end return t end)()"),
    ("a table as a key", "{ [{}] = 1 }"),
  ]

  @Test(arguments: extras.map(\.name))
  func aModuleHoldingItLoadsAndRuns(_ name: String) throws {
    let value = try #require(Self.extras.first { $0.name == name }?.value)
    let source = """
      local M = { extra = \(value) }
      M[{}] = "a table key on the module itself"
      function M.initial_state() return { n = 0 } end
      function M.reduce(state, action) state.n = state.n + 1 end
      return M
      """
    let feature = try LuaFeature(source: LuaString(source), file: "extra.lua")
    _ = try feature.step(["type": "go"])
    #expect(try feature.state() == ["n": 1], "\(name)")
  }

  /// The fields the host reads are still checked, `persist` as deeply as before; a field that
  /// looks misspelt is still named when it holds what no snapshot takes.
  @Test func theFieldsTheHostReadsAreStillChecked() {
    func loadError(_ source: String) -> LuaFeatureError? {
      do {
        _ = try LuaFeature(source: LuaString(source), file: "m.lua")
        return nil
      } catch { return error }
    }
    #expect(
      loadError("local p = { path = 'x.lua' } p.me = p return { reduce = print, persist = p }")
        == .load(file: "m.lua", message: "persist.me: cycle: the table contains itself"))
    #expect(
      loadError("local t = {} t.me = t return { reduce = print, intial_state = t }")
        == .load(
          file: "m.lua",
          message: "the returned table has intial_state but no initial_state, which the host "
            + "reads: did you mean initial_state?"))
    #expect(
      loadError("local t = {} t.me = t return { reduce = t }")
        == .load(file: "m.lua", message: "reduce must be a function, got table"))
    #expect(
      loadError("return setmetatable({}, { __index = { reduce = print } })")
        == .load(
          file: "m.lua",
          message: "the returned table has no reduce function of its own (the host reads the "
            + "table's own fields, not what its metatable's __index gives: set reduce on the "
            + "table itself)"))
    #expect(
      loadError("return nil")
        == .load(
          file: "m.lua", message: "a feature must return a table with a reduce function, got nothing"))
    #expect(
      loadError("return print")
        == .load(
          file: "m.lua",
          message: "a feature must return a table with a reduce function, got function"))
  }

  /// A reload of code whose module holds a class swaps in as any other.
  @Test func aReloadOfAModuleHoldingAClassSwaps() throws {
    let feature = try LuaFeature(
      source: "return { initial_state = function() return { n = 0 } end, reduce = function(s) s.n = s.n + 1 end }",
      file: "m.lua")
    try feature.swap(
      toSource: LuaString(
        """
        local C = {} C.__index = C
        return { C = C, initial_state = function() return { n = 0 } end,
          reduce = function(s) s.n = s.n + 10 end }
        """))
    _ = try feature.step(["type": "go"])
    #expect(try feature.state() == ["n": 10])
  }
}
