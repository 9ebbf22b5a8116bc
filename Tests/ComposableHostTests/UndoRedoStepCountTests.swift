import ComposableHost
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// `:undo N` and `:redo N` take N steps in one jump, as N of them one by one would; anything but
/// a whole number from 1 on is refused (`:undo x` went back one step without a word). A command
/// that takes nothing refuses what follows it, rather than doing what it does alone.
@Suite struct UndoRedoStepCountTests {
  typealias Harness = ReplSessionTests.Harness

  @Test func undoNGoesBackNChangesPassingOverFailedActions() async throws {
    let repl = try Harness()
    await repl.type("increment", "boom", "increment", "increment")
    #expect(
      await repl.type(":undo 2").0 == """
          after 1 of 4: { type = "increment" }
          (past 1 failed action, which changed nothing)
          − count = 3
          + count = 1
        """)
    #expect(
      await repl.type(":redo 2").0 == """
          after 4 of 4: { type = "increment" }
          (past 1 failed action, which changed nothing)
          − count = 1
          + count = 3
        """)
  }

  /// The same place as the steps one by one, from every place and for every count.
  @Test func nStepsLandWhereNSingleStepsLand() async throws {
    let typed = ["increment", "boom", "increment", "ping", "boom", "increment", "boom"]
    for count in 1...5 {
      for start in 0...typed.count {
        let many = try Harness()
        let single = try Harness()
        for repl in [many, single] {
          for line in typed { await repl.type(line) }
          await repl.type(":goto \(start)")
        }
        let position = many.session.timeline.position
        await many.type(":undo \(count)")
        for _ in 1...count { await single.type(":undo") }
        #expect(
          many.session.timeline.position == single.session.timeline.position,
          "undo \(count) from \(position)")
        await many.type(":redo \(count)")
        for _ in 1...count { await single.type(":redo") }
        #expect(
          many.session.timeline.position == single.session.timeline.position,
          "redo \(count) after undo \(count) from \(position)")
        #expect(try many.session.feature.state() == single.session.feature.state())
      }
    }
  }

  @Test func moreStepsThanThereAreGoAsFarAsTheyCanAndSaySo() async throws {
    let repl = try Harness()
    await repl.type("increment", "increment")
    #expect(
      await repl.type(":undo 5").0 == """
          at the start
          (2 of the 5 steps asked: no change before it to undo)
          − count = 2
          + count = 0
        """)
    #expect(
      await repl.type(":redo 3").0 == """
          after 2 of 2: { type = "increment" }
          (2 of the 3 steps asked: no change after it)
          − count = 0
          + count = 2
        """)
  }

  /// A reload whose `migrate` changed the state stops the steps there, and the note says why.
  @Test func stepsStopAtAMigrationAndSayWhy() async throws {
    let repl = try Harness(source: MigrationInTimeTravelTests.before)
    await repl.type("inc", "inc")
    try MigrationInTimeTravelTests.after.write(to: repl.file, atomically: true, encoding: .utf8)
    await repl.type(":reload", "inc")
    let printed = await repl.type(":undo 3").0
    #expect(repl.session.timeline.position == 2)
    #expect(
      printed.contains(
        "(1 of the 3 steps asked: :undo cannot go back past action 2: a reload's migrate "))
  }

  /// A redo over actions undone before a reload ends where the code of now returns another
  /// effect, and says so: what was counted from the old records (the steps taken, the failed
  /// actions passed over) is not said then (an attacker's finding: "3 of the 5 steps asked",
  /// "past 1 failed action", where it had taken one and passed none).
  @Test func aRedoOverStaleActionsSaysNoCountFromTheOldRecords() async throws {
    let repl = try ReplSessionTests.Harness()
    await repl.type("increment", "boom", "increment", "increment", ":undo 5")
    #expect(repl.session.timeline.position == 0)
    let later = ReplSessionTests.source.replacingOccurrences(
      of: "state.count = state.count + 1\n",
      with: "state.count = state.count + 1 return effect.after(5, \"decrement\")\n")
    try later.write(to: repl.file, atomically: true, encoding: .utf8)
    await repl.type(":reload")
    let said = await repl.type(":redo 5").0
    #expect(said.contains("action 1 returns another effect now"), "\(said)")
    #expect(said.contains("after 1 of 1"), "\(said)")
    #expect(!said.contains("steps asked") && !said.contains("past 1 failed"), "\(said)")
  }

  @Test func aCountThatIsNoWholeNumberFromOneOnIsRefused() async throws {
    let repl = try Harness()
    await repl.type("increment", "increment")
    for bad in [
      "x", "0", "-1", "1.5", "2 3", "0x2", "-99999999999999999999", "00000000000000000000000",
    ] {
      for command in [":undo", ":redo"] {
        let direction = command == ":undo" ? "back" : "forward"
        #expect(
          await repl.type("\(command) \(bad)").0 == """
              error: \(command) takes how many steps to go \(direction), 1 or more \
            (\(command) 3), or nothing for one; \(bad.debugDescription) is not that
            """)
        #expect(repl.session.timeline.position == 2)
      }
    }
    #expect(try repl.session.feature.state().count == 2)
  }

  /// A count past what an Int holds is as many as there are; a tab parts a command from its
  /// argument as a space does.
  @Test func aHugeCountAndATabAreTakenAsMeant() async throws {
    let repl = try Harness()
    await repl.type("increment", "increment")
    let said = await repl.type(":undo 99999999999999999999999").0
    #expect(said.hasPrefix("  at the start"), "\(said)")
    #expect(await repl.type(":redo\t1").0.hasPrefix("  after 1 of 2"))
    #expect(await repl.type(":log\t5").0.contains("takes nothing after it"))
  }

  /// Every command `:help` lists without an argument, and the short names, refuse one.
  @Test func aCommandThatTakesNothingRefusesAnArgument() async throws {
    let bare = ReplSession.commands.map(\.name).filter { $0.hasPrefix(":") && !$0.contains(" ") }
    #expect(bare.count >= 10)
    let repl = try Harness()
    await repl.type("increment")
    for command in bare + [":q", ":h"] {
      let (printed, reply) = await repl.type("\(command) now")
      #expect(
        printed == """
            error: \(command) takes nothing after it, and "now" is not used. To fix, type \
          \(command) alone (:help lists what each command takes)
          """)
      guard case .ready = reply else {
        Issue.record("\(command) now: \(reply)")
        continue
      }
    }
    #expect(try repl.session.feature.state().count == 1)
    #expect(repl.session.timeline.count == 1)
  }
}
