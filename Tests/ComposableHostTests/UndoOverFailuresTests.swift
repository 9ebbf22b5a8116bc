import ComposableHost
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// A failed action is an entry of the session that changed nothing (it was rolled back).
/// `:undo` takes back the last change, passing over the failed actions after it and before it,
/// and says how many it passed; `:redo` passes over them the same way. A reload whose `migrate`
/// changed the state is a change no undo passes.
@Suite struct UndoOverFailuresTests {
  typealias Harness = ReplSessionTests.Harness

  @Test func undoPassesOverFailedActionsToTheLastChange() async throws {
    let repl = try Harness()
    await repl.type("increment", "increment", "boom", "boom")
    #expect(try repl.session.feature.state().count == 2)
    #expect(
      await repl.type(":undo").0 == """
          after 1 of 4: { type = "increment" }
          (past 2 failed actions, which changed nothing)
          − count = 2
          + count = 1
        """)
    #expect(await repl.type(":undo").0 == "  at the start\n  − count = 1\n  + count = 0")
    #expect(await repl.type(":undo").0 == "  nothing to undo")
  }

  /// A failed action between two changes: undo lands after the change before it (the state is
  /// the same there), and redo goes past it again to the next change.
  @Test func undoAndRedoStepOverAFailedActionBetweenChanges() async throws {
    let repl = try Harness()
    await repl.type("increment", "boom", "increment")
    #expect(
      await repl.type(":undo").0 == """
          after 1 of 3: { type = "increment" }
          (past 1 failed action, which changed nothing)
          − count = 2
          + count = 1
        """)
    #expect(repl.session.timeline.position == 1)
    #expect(
      await repl.type(":redo").0 == """
          after 3 of 3: { type = "increment" }
          (past 1 failed action, which changed nothing)
          − count = 1
          + count = 2
        """)
    #expect(await repl.type(":redo").0 == "  nothing to redo")
  }

  @Test func withOnlyFailedActionsThereIsNothingToUndo() async throws {
    let repl = try Harness()
    await repl.type("boom", "boom")
    #expect(
      await repl.type(":undo").0
        == "  nothing to undo: every action so far failed, changing nothing")
    #expect(repl.session.timeline.position == 2)
  }

  /// A failed action right before a reload whose `migrate` changed the state: undo after the
  /// reload lands on the migrated state, not past it, and the next undo says why it stops.
  @Test func undoStopsAtAMigrationThoughAFailedActionIsBeforeIt() async throws {
    let boom = #"  elseif action.type == "boom" then error("boom") end"#
    func withBoom(_ source: String) -> String {
      source.replacingOccurrences(of: "state.n + 1 end", with: "state.n + 1\n" + boom)
        .replacingOccurrences(of: "state.count + 1 end", with: "state.count + 1\n" + boom)
    }
    let repl = try Harness(source: withBoom(MigrationInTimeTravelTests.before))
    await repl.type("inc", "boom")
    #expect(repl.session.timeline.action(2)?.failed == true)
    try withBoom(MigrationInTimeTravelTests.after).write(
      to: repl.file, atomically: true, encoding: .utf8)
    await repl.type(":reload", "inc")
    #expect(try repl.session.feature.state() == ["count": 11])
    #expect(await repl.type(":undo").0.hasSuffix("  − count = 11\n  + count = 10"))
    #expect(repl.session.timeline.position == 2)
    let refused = await repl.type(":undo").0
    #expect(refused.hasPrefix("  error: :undo cannot go back past action 2: a reload's migrate"))
    #expect(try repl.session.feature.state() == ["count": 10])
  }
}
