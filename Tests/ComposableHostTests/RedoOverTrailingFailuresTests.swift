import ComposableHost
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// Found by testing: `:redo` with only failed actions ahead landed on the last of them, saying
/// "after 3 of 3" and "(past 1 failed action)" though it passed two and changed nothing; then
/// `:undo` went back past the change `:redo` started from. With nothing but failures ahead, there
/// is nothing to redo, as `:undo` says there is nothing to undo behind only failures.
@Suite struct RedoOverTrailingFailuresTests {
  typealias Harness = ReplSessionTests.Harness

  @Test func redoWithOnlyFailedActionsAheadHasNothingToRedo() async throws {
    let repl = try Harness()
    await repl.type("increment", "boom", "boom", ":undo", ":redo")
    #expect(repl.session.timeline.position == 1)
    #expect(
      await repl.type(":redo").0
        == "  nothing to redo: every action ahead failed, changing nothing")
    #expect(repl.session.timeline.position == 1)
    #expect(try repl.session.feature.state().count == 1)
    // The failed actions stay in the timeline, for `:goto` and `:log`.
    #expect(repl.session.timeline.count == 3)
  }

  /// A failed action ahead, then a change: `:redo` still passes over the failure to the change.
  @Test func redoPassesOverAFailureBeforeAChangeAhead() async throws {
    let repl = try Harness()
    await repl.type("boom", "increment", "boom", ":goto 0")
    #expect(
      await repl.type(":redo").0 == """
          after 2 of 3: { type = "increment" }
          (past 1 failed action, which changed nothing)
          − count = 0
          + count = 1
        """)
    #expect(
      await repl.type(":redo").0
        == "  nothing to redo: every action ahead failed, changing nothing")
  }
}
