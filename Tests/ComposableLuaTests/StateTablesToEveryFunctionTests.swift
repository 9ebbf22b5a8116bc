import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// Every function feature code reaches, called in a reducer with a state table (a proxy with
/// flat reads, one with a view, a list, the root) at each of its first four arguments and every
/// other argument from a small set: the host never crashes. `ipairs(state.list, 0)` crashed it:
/// the C function took its second argument for the real table it had pushed, as if it got one.
/// (Under the sanitized suite, a read it should not make fails this test too.)
@Suite struct StateTablesToEveryFunctionTests {
  static let feature = repositoryRoot.appendingPathComponent(
    "Tests/ComposableLuaTests/lua/bounds/statecalls.lua")

  @Test func noCallCrashesTheHost() throws {
    let feature = try LuaFeature(
      contentsOf: Self.feature,
      limits: LuaLimits(memory: 512 << 20, instructions: 2_000_000_000, seconds: 300),
      print: { _ in })
    _ = try feature.step(["type": "read"])
    _ = try feature.step(["type": "call"])
    let state = try feature.state()
    // Every function, at each place, with each kind of state table and each other value.
    // (A feature reaches the sandbox's functions and more: at least those.)
    let functions = try #require(state.functions.intValue)
    #expect(functions >= LibraryBoundsEnumerationTests.reachable.count)
    #expect(state.calls == .integer((functions - 1) * 4 * 7 * 13))
  }
}
