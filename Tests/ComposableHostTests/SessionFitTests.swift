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
