import ComposableLua
import LuaKit
import TestSupport
import Testing

/// The action shape is defined once in Swift (`LuaAction`); the Lua library mirrors its
/// shorthand in one place (`composable.as_action`). The two must read every action alike.
@Suite struct ActionShapeInStepTests {
  @Test(arguments: [
    "increment" as LuaValue, ["type": "add", "amount": 3], ["type": "todo", "action": "toggled"],
  ])
  func luaAndSwiftReadAnActionAlike(action: LuaValue) throws {
    let vm = try LuaVM()
    let modules = ComposableLuaLibrary.modules.merging(
      ["composable.journal": ComposableLuaLibrary.plainJournal]) { $1 }
    let sandbox = try vm.makeSandbox(.init(modules: LuaModuleTable(modules)))
    let asAction = try vm.evaluate(
      "return require('composable').as_action", chunkName: "check", in: sandbox)[0]
    guard case let .function(function) = asAction else {
      Issue.record("composable.as_action is missing")
      return
    }
    #expect(try vm.call(function, with: action) == LuaAction.normalize(action))
  }

  @Test func theStepAndTheEffectsSayWhatIsWrongInTheSameWords() throws {
    let feature = try LuaFeature(
      source: "return { reduce = function() end }", file: "plain.lua")
    let error = featureError { _ = try feature.step(42) }
    guard case let .malformedAction(_, message) = error else {
      Issue.record("expected the action refused, got \(String(describing: error))")
      return
    }
    do {
      _ = try LuaAction.normalize(42)
      Issue.record("42 is no action")
    } catch {
      #expect(error.message == message)
      #expect(message == "expected an action (a table with a string type, or a string), got number")
    }
  }
}
