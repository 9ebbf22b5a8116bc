import Foundation
import TestSupport
import Testing

/// `composable run --watch`: a reload whose new code has `migrate(state)` prints what it
/// changed, as an action's changes are printed, and the next action starts from there.
@Suite struct RunWatchMigrationTests {
  static let before = """
    return {
      initial_state = function() return { n = 0 } end,
      reduce = function(state, action) if action.type == "tick" then state.n = state.n + 1 end end,
    }
    """
  static let after = """
    return {
      initial_state = function() return { count = 0 } end,
      migrate = function(state)
        if state.n ~= nil then state.count = state.n * 10 state.n = nil end
      end,
      reduce = function(state, action)
        if action.type == "tick" then state.count = state.count + 1 end
      end,
    }
    """

  @Test func aReloadPrintsWhatItsMigrateChanged() throws {
    let directory = try makeTemporaryDirectory("watch-migrate")
    defer { try? FileManager.default.removeItem(at: directory) }
    let feature = directory.appendingPathComponent("tick.lua")
    try Self.before.write(to: feature, atomically: false, encoding: .utf8)
    let run = try WatchedRun(feature: feature, data: directory)
    run.type("tick")
    #expect(run.waitFor("+ n = 1"))
    try Self.after.write(to: feature, atomically: true, encoding: .utf8)
    #expect(run.waitFor("migrate(state):"), "\(run.output)")
    // Once more with the same migrate, which now finds nothing to change: said so, as an
    // action that changed nothing is.
    try (Self.after + "\n").write(to: feature, atomically: true, encoding: .utf8)
    #expect(run.waitFor("  (No state changes)"), "\(run.output)")
    run.type("tick")
    #expect(run.waitFor("+ count = 11"), "\(run.output)")
    #expect(try run.end() == 0)
    let printed = run.output
    let migrations = printed.components(separatedBy: "reloaded tick.lua in ").dropFirst()
      .map { $0.drop { $0 != "\n" }.dropFirst() }
    #expect(migrations.count == 2, "\(printed)")
    #expect(
      migrations.first?.hasPrefix("migrate(state):\n  + count = 10\n  − n = 1\n") == true,
      "\(printed)")
    #expect(
      migrations.last?.hasPrefix("migrate(state):\n  (No state changes)\n") == true, "\(printed)")
  }

  /// An editor's save that deletes (or truncates) the file and then writes it is said as the
  /// old code running on, and the run ends with 0: it ended with 2, "reloads were refused", for
  /// saves that went well (a new user's finding). A save that is broken is still refused.
  @Test func aFileDeletedOrEmptiedWhileSavedIsNoRefusal() throws {
    let directory = try makeTemporaryDirectory("watch-deleted")
    defer { try? FileManager.default.removeItem(at: directory) }
    let feature = directory.appendingPathComponent("tick.lua")
    try Self.before.write(to: feature, atomically: false, encoding: .utf8)
    let run = try WatchedRun(feature: feature, data: directory)
    run.type("tick")
    #expect(run.waitFor("+ n = 1"))
    try FileManager.default.removeItem(at: feature)
    #expect(run.waitFor("tick.lua is gone (deleted or moved away)"), "\(run.output)")
    try Self.before.write(to: feature, atomically: false, encoding: .utf8)
    #expect(run.waitFor("reloaded tick.lua in "), "\(run.output)")
    let handle = try FileHandle(forWritingTo: feature)
    try handle.truncate(atOffset: 0)
    try handle.close()
    #expect(run.waitFor("tick.lua is empty (a save under way?)"), "\(run.output)")
    try Self.after.write(to: feature, atomically: false, encoding: .utf8)
    #expect(run.waitFor("migrate(state):"), "\(run.output)")
    run.type("tick")
    #expect(run.waitFor("+ count = 11"), "\(run.output)")
    #expect(try run.end() == 0, "\(run.output)")
  }
}
