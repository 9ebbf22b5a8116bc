import ComposableHost
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// A reload whose `migrate` changed the state is part of the session's history: a jump back
/// before it shows the state as it was, a jump to it or past it starts from what it left, and
/// `:save` says that a replay will not run it.
@Suite struct MigrationInTimeTravelTests {
  static let before = """
    local F = {}
    function F.initial_state() return { count = 0 } end
    function F.reduce(state, action)
      if action.type == "inc" then state.count = state.count + 1 end
    end
    return F
    """
  static let after = before.replacingOccurrences(
    of: "return F", with: "function F.migrate(state) state.count = state.count * 10 end\nreturn F")

  @Test func aJumpPastAMigrationStartsFromWhatItLeft() async throws {
    let repl = try ReplSessionTests.Harness(source: Self.before)
    await repl.type("inc", "inc")
    try Self.after.write(to: repl.file, atomically: true, encoding: .utf8)
    await repl.type(":reload")
    #expect(try repl.session.feature.state()["count"] == 20)
    await repl.type("inc")
    #expect(try repl.session.feature.state()["count"] == 21)

    await repl.type(":goto 1")
    #expect(try repl.session.feature.state()["count"] == 1)  // before the migration
    await repl.type(":goto 2")
    #expect(try repl.session.feature.state()["count"] == 20)  // where it ran
    await repl.type(":goto 0", ":redo", ":redo", ":redo")
    #expect(try repl.session.feature.state()["count"] == 21)

    let saved = repl.file.deletingLastPathComponent().appendingPathComponent("s.session.lua")
    let said = await repl.type(":save \(saved.path)").0
    #expect(said.contains("note: a reload's migrate changed the state after action 2"), "\(said)")
  }
}
