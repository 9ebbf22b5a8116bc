import ComposableLua
import LuaKit
import Testing

@testable import ComposableLua

/// An effect holds only the fields its kind has (each kind's list, Effects/): a misspelt or
/// extra field fails the action that returned it, naming the field, as a wrong value does. So do
/// a misspelt option of `effect.cancellable` and `effect.throttle`, at the reducer's line.
@Suite struct EffectFieldsTests {
  /// A valid effect of every kind, made by its constructor (Lua expressions).
  static let made: [String: String] = [
    "none": "{ kind = 'none' }",
    "send": "effect.send('x')",
    "merge": "effect.merge(effect.send('x'))",
    "concat": "effect.concat(effect.send('x'))",
    "after": "effect.after(1, 'x')",
    "every": "effect.every(1, 'x')",
    "cancellable": "effect.cancellable(effect.send('x'), 'c')",
    "cancel": "effect.cancel('c')",
    "debounce": "effect.debounce(effect.send('x'), 'd', 1)",
    "throttle": "effect.throttle(effect.send('x'), 't', 1)",
    "run": "effect.run(function() end)",
    "http": "effect.http{ url = 'http://x.test/', response = 'r' }",
    "file": "effect.file.read{ path = 'a.txt', response = 'r' }",
  ]

  /// The error of an action whose reducer returns `expression` with `extra` set on it (Lua
  /// statements run on `e` before it is returned).
  func error(of expression: String, _ extra: String) throws -> LuaFeatureError? {
    let feature = try LuaFeature(
      source: """
        local effect = require("composable.effect")
        return { reduce = function(state, action)
          state.n = 1
          local e = \(expression)
          \(extra)
          return e
        end }
        """, file: "fields.lua")
    let outcome = feature.step("go", LuaStepContext(dependencies: nil, effects: .check))
    #expect(try feature.state() == [:], "rolled back")
    return outcome.error
  }

  @Test func everyKindIsCovered() {
    #expect(Set(Self.made.keys) == Set(LuaEffectKinds.all.map { $0.name }))
  }

  @Test func aValidEffectOfEveryKindPasses() throws {
    for (kind, expression) in Self.made {
      let feature = try LuaFeature(
        source: """
          local effect = require("composable.effect")
          return { reduce = function(state, action) state.n = 1 return \(expression) end }
          """, file: "fields.lua")
      let outcome = feature.step("go", LuaStepContext(dependencies: nil, effects: .check))
      #expect(outcome.error == nil, "\(kind): \(String(describing: outcome.error))")
    }
  }

  @Test func anExtraFieldOnAnyKindFailsTheActionNamingIt() throws {
    for (kind, expression) in Self.made {
      let error = try error(of: "(function(t) local c = {} for k, v in pairs(t) do c[k] = v end "
        + "return c end)(\(expression))", "e.bogus = 1")
      #expect(
        error?.description.contains("effect.bogus: effect.\(kind) has no field \"bogus\"") == true,
        "\(kind): \(String(describing: error))")
    }
  }

  @Test func aMisspeltFieldIsNamedWithTheFieldsThereAre() throws {
    let error = try error(of: "effect.cancel('c')", "e.ids = { 1 }")
    #expect(
      error?.description
        == "the reducer returned a malformed effect for { type = \"go\" }, and the state was "
        + "rolled back: effect.ids: effect.cancel has no field \"ids\"; its fields are id. To "
        + "fix, make the effect with composable.effect's constructors")
  }

  @Test func aMisspeltOptionIsAnErrorAtTheReducersLine() throws {
    for (expression, message) in [
      (
        "effect.cancellable(effect.send('x'), 'c', { cancel_inflight = true })",
        "fields.lua:4: effect.cancellable: no option \"cancel_inflight\"; its options are "
          + "cancel_in_flight"
      ),
      (
        "effect.throttle(effect.send('x'), 't', 1, { latst = false })",
        "fields.lua:4: effect.throttle: no option \"latst\"; its options are latest"
      ),
      (
        "effect.throttle(effect.send('x'), 't', 1, true)",
        "fields.lua:4: effect.throttle: expected an options table, got boolean"
      ),
    ] {
      let error = try error(of: expression, "")
      guard case let .reduce(_, luaError) = error else {
        Issue.record("\(expression): \(String(describing: error))")
        continue
      }
      #expect(luaError.message == message)
    }
  }
}
