import ComposableHost
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// A reload whose `migrate` changed the state is part of the session's history. The states
/// before it were made by code the session no longer has: time travel does not go there (it
/// says why), and what `:save` and `:test` write starts from the state it left, so that a
/// replay and a test run the actions after it on the code of now, as they ran.
@Suite struct MigrationInTimeTravelTests {
  static let before = """
    local F = {}
    function F.initial_state() return { n = 0 } end
    function F.reduce(state, action)
      if action.type == "inc" then state.n = state.n + 1 end
    end
    return F
    """
  // The state's shape changes: the old actions cannot run on this code from the old start.
  static let after = """
    local F = {}
    function F.initial_state() return { count = 0 } end
    function F.migrate(state) state.count = state.n * 10 state.n = nil end
    function F.reduce(state, action)
      if action.type == "inc" then state.count = state.count + 1 end
    end
    return F
    """

  func session() async throws -> ReplSessionTests.Harness {
    let repl = try ReplSessionTests.Harness(source: Self.before)
    await repl.type("inc", "inc")
    try Self.after.write(to: repl.file, atomically: true, encoding: .utf8)
    await repl.type(":reload")
    #expect(try repl.session.feature.state() == ["count": 20])
    await repl.type("inc")
    #expect(try repl.session.feature.state() == ["count": 21])
    return repl
  }

  @Test func timeTravelGoesBackToTheMigrationAndNoFurther() async throws {
    let repl = try await session()
    await repl.type(":goto 2")
    #expect(try repl.session.feature.state() == ["count": 20])  // where it ran
    await repl.type(":redo")
    #expect(try repl.session.feature.state() == ["count": 21])
    // The migration came after action 2: that is what blocks the way, and it is said in that
    // order.
    let refused = await repl.type(":goto 1").0
    #expect(
      refused == """
          error: :goto cannot go to action 1: a reload's migrate changed the state after action \
        2, and the states before that were made by code the session no longer has (the code of \
        now cannot make them again). To fix, :goto 2 or a later action
        """)
    #expect(try repl.session.feature.state() == ["count": 21])  // nothing moved
    #expect(await repl.type(":goto 0").0.contains(":goto cannot go to the start: a reload's"))
    await repl.type(":goto 2")
    #expect(
      await repl.type(":undo").0 == """
          error: :undo cannot go back past action 2: a reload's migrate changed the state after \
        action 2, and the states before that were made by code the session no longer has (the \
        code of now cannot make them again)
        """)
    #expect(try repl.session.feature.state() == ["count": 20])
  }

  @Test func aSavedSessionStartsAfterTheMigrationAndReplays() async throws {
    let repl = try await session()
    let saved = repl.file.deletingLastPathComponent().appendingPathComponent("s.session.lua")
    let said = await repl.type(":save \(saved.path)").0
    #expect(said.contains("saved 1 action"), "\(said)")
    #expect(said.contains("note: it starts after action 2, where a reload's migrate changed"))
    let recording = await repl.session.recording()
    #expect(recording.initialState == ["count": 20])
    #expect(recording.actions.map(\.action) == [["type": "inc"]])
  }

  /// A reload whose `migrate` ran before any action is the session's start: `:replay` and
  /// `:goto 0` start from the migrated state, as the actions after it ran.
  @Test func aMigrationBeforeAnyActionIsWhereReplayStarts() async throws {
    let repl = try ReplSessionTests.Harness(source: Self.before)
    try Self.after.write(to: repl.file, atomically: true, encoding: .utf8)
    await repl.type(":reload")
    #expect(try repl.session.feature.state() == ["count": 0])
    await repl.type("inc", "inc")
    #expect(try repl.session.feature.state() == ["count": 2])
    let replayed = await repl.type(":replay").0
    #expect(!replayed.contains("error"), "\(replayed)")
    #expect(try repl.session.feature.state() == ["count": 2])
    await repl.type(":goto 0")
    #expect(try repl.session.feature.state() == ["count": 0])
    await repl.type(":goto 2")
    #expect(try repl.session.feature.state() == ["count": 2])
  }

  @Test func aTestWrittenAfterAMigrationStartsThereAndPasses() async throws {
    let repl = try await session()
    let test = repl.file.deletingLastPathComponent().appendingPathComponent("counter_test.lua")
    let written = await repl.type(":test \(test.path)").0
    #expect(written.contains("1 sent"), "\(written)")
    #expect(written.contains("it passes"), "\(written)")
  }
}
