import ComposableHost
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// A REPL session counts what failed (actions, refused reloads) for its host's exit status
/// (`composable run` at a terminal exits 2 then), and says what a reload's `migrate` changed,
/// or that it changed nothing, as `run --watch` does.
@Suite struct SessionFailuresTests {
  typealias Harness = ReplSessionTests.Harness

  /// `migrate` that upgrades a state of `before` once, and finds nothing to do after.
  static let after = """
    local F = {}
    function F.initial_state() return { count = 0 } end
    function F.migrate(state)
      if state.n ~= nil then state.count = state.n * 10 state.n = nil end
    end
    function F.reduce(state, action)
      if action.type == "inc" then state.count = state.count + 1 end
      if action.type == "boom" then error("boom") end
    end
    return F
    """

  @Test func failedActionsAndRefusedReloadsAreCounted() async throws {
    let repl = try Harness(source: Self.after)
    await repl.type("inc")
    #expect(!repl.session.failures.any)
    await repl.type("boom", "boom")
    #expect(repl.session.failures.counts.actions == 2)
    // Undone, the failures still count: they happened in the session.
    await repl.type(":undo", "inc")
    #expect(repl.session.failures.counts.actions == 2)
    try "return {".write(to: repl.file, atomically: true, encoding: .utf8)
    let refused = await repl.type(":reload").0
    #expect(refused.contains("the old code runs on"), "\(refused)")
    #expect(repl.session.failures.counts.reloads == 1)
    #expect(repl.session.failures.any)
  }

  @Test func aReloadWhoseMigrateChangedNothingSaysSo() async throws {
    let repl = try Harness(source: MigrationInTimeTravelTests.before)
    await repl.type("inc")
    try Self.after.write(to: repl.file, atomically: true, encoding: .utf8)
    let first = await repl.type(":reload").0
    #expect(first.hasSuffix("\n  + count = 10\n  − n = 1"), "\(first)")
    try (Self.after + "\n").write(to: repl.file, atomically: true, encoding: .utf8)
    let second = await repl.type(":reload").0
    #expect(second.hasSuffix("\n  (No state changes)"), "\(second)")
    #expect(second.hasPrefix("reloaded "), "\(second)")
    #expect(!repl.session.failures.any)
  }
}
