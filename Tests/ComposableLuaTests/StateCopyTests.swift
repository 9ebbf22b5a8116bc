import ComposableLua
import LuaKit
import Testing

/// A copy of the state kept in the VM is the state as it was: the writes after it, to the top
/// and deep inside, do not reach it, and reading it does not disturb the state.
@Suite struct StateCopyTests {
  static let source = """
    return {
      initial_state = function() return { n = 0, list = { { v = 1 } }, shared = {} } end,
      reduce = function(state, action)
        state.n = state.n + 1
        state.list[1].v = state.list[1].v * 10
        state.list[#state.list + 1] = { v = state.n }
        state.alias = state.list
      end,
    }
    """

  @Test func aCopyIsTheStateAsItWas() throws {
    let feature = try LuaFeature(source: Self.source, file: "f.lua")
    try feature.step("go")
    let before = try feature.state()
    let copy = try feature.stateCopy()
    try feature.step("go")
    try feature.step("go")
    #expect(try copy.value() == before)
    #expect(try copy.value() != (try feature.state()))
    // Read twice, the same; the state goes on.
    #expect(try copy.value() == before)
    try feature.step("go")
    #expect(try feature.state().n == 4)
    // A table the state held at two places is one table in the copy too.
    let read = try copy.value()
    #expect(read.alias.tableValue?.identity == read.list.tableValue?.identity)
  }

  /// No copy once the VM uses a quarter of its memory limit: kept, it could take as much
  /// again, and the reducer would meet the limit where a run does not.
  @Test func noCopyPastAQuarterOfTheMemoryLimit() throws {
    let small = try LuaFeature(
      source: Self.source, file: "f.lua", limits: LuaLimits(memory: 8 << 20))
    _ = try small.stateCopy()
    let big = try LuaFeature(
      source: """
        return {
          initial_state = function()
            local list = {}
            for i = 1, 40000 do list[i] = { title = "todo " .. i, done = false } end
            return { list = list }
          end,
          reduce = function() end,
        }
        """, file: "f.lua", limits: LuaLimits(memory: 16 << 20))
    #expect(big.memoryInUse() > 4 << 20)
    #expect(throws: LuaFeatureError.self) { try big.stateCopy() }
  }
}
