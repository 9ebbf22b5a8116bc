@testable import ComposableHost
import Foundation
import LuaKit
import TestSupport
import Testing

/// A session fits a feature when every action that did something when recorded is of a type the
/// feature handles: a misspelt type the REPL recorded (it did nothing) does not make a session
/// refused, and a type that is not UTF-8 is named as the string it is.
@Suite struct SessionFitTests {
  static let source = """
    return { reduce = function(state, action)
      if action.type == "inc" then state.n = (state.n or 0) + 1 end
    end }
    """

  func check(_ actions: [RecordedAction]) throws -> String? {
    let directory = try makeTemporaryDirectory("session-fit")
    defer { try? FileManager.default.removeItem(at: directory) }
    let feature = directory.appendingPathComponent("fit.lua")
    try Self.source.write(to: feature, atomically: true, encoding: .utf8)
    let recording = SessionRecording(
      feature: "fit.lua", code: "", env: [:], initialState: [:], actions: actions)
    do {
      try SessionFit.check(recording, against: feature)
      return nil
    } catch {
      return "\(error)"
    }
  }

  @Test func anActionThatDidNothingIsPassedBy() throws {
    #expect(
      try check([
        RecordedAction(action: ["type": "inc"], fromEffect: false, time: 0),
        RecordedAction(action: ["type": "incc"], fromEffect: false, time: 1, didNothing: true),
      ]) == nil)
  }

  @Test func anActionThatDidSomethingMustFit() throws {
    let message = try check([
      RecordedAction(action: ["type": "incc"], fromEffect: false, time: 0)
    ])
    #expect(message?.hasPrefix("action 1 ({ type = \"incc\" }) does not fit fit.lua") == true)
  }

  @Test func anActionWithAnEffectOrAnErrorDidSomething() throws {
    let withEffect = RecordedAction(
      action: ["type": "incc"], fromEffect: false, time: 0, effect: ["kind": "none"],
      didNothing: true)
    let failed = RecordedAction(
      action: ["type": "incc"], fromEffect: false, time: 0, error: "boom", didNothing: true)
    #expect(!withEffect.didNothing && !failed.didNothing)
    #expect(try check([withEffect]) != nil)
  }

  @Test func aTypeThatIsNotUTF8IsNamedAsAString() throws {
    let type = LuaValue.string(LuaString(bytes: Array("set".utf8) + [0xFF]))
    let message = try check([
      RecordedAction(action: .table(LuaTable(entries: ["type": type])), fromEffect: false, time: 0)
    ])
    #expect(message?.contains("has no string type") == false, "\(String(describing: message))")
    #expect(message?.contains(#"it handles no action of type "set\255""#) == true,
      "\(String(describing: message))")
  }

  /// A session replayed on the code it was recorded with is not checked: that code handles its
  /// actions, whatever its source names (here every type but `reset` falls through to one
  /// branch). It was refused, where `:save` had just said how to replay it (an attacker's
  /// finding); on other code the check stands.
  @Test func theCodeTheSessionWasRecordedOnIsNotChecked() async throws {
    let source = """
      local F = {}
      function F.initial_state() return { seen = {} } end
      function F.reduce(state, action)
        if action.type == "reset" then state.seen = {} return end
        state.seen[#state.seen + 1] = action.type
      end
      return F
      """
    let repl = try ReplSessionTests.Harness(source: source)
    await repl.type("hello", "there")
    let session = repl.file.deletingLastPathComponent().appendingPathComponent("s.session.lua")
    let saved = await repl.type(":save \(session.path)").0
    #expect(saved.contains("saved 2 actions to "), "\(saved)")
    let recording = try SessionRecording.read(from: session)
    let playback = try SessionPlayback.run(recording, feature: repl.file)
    #expect(!playback.codeChanged && playback.report.asRecorded)
    #expect(try playback.state == ["seen": ["hello", "there"]])
    // Changed code: checked, and refused for a type its source does not name.
    try (source + "\n-- changed\n").write(to: repl.file, atomically: true, encoding: .utf8)
    #expect(throws: SessionFit.Mismatch.self) {
      try SessionPlayback.run(recording, feature: repl.file)
    }
  }

  @Test func didNothingSurvivesTheFile() throws {
    let recording = SessionRecording(
      feature: "fit.lua", code: "", env: [:], initialState: [:],
      actions: [
        RecordedAction(action: ["type": "incc"], fromEffect: false, time: 0, didNothing: true),
        RecordedAction(action: ["type": "inc"], fromEffect: false, time: 1),
      ])
    let read = try SessionRecording(reading: recording.luaValue)
    #expect(read.actions.map(\.didNothing) == [true, false])
  }
}
