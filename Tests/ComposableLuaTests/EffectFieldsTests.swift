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
      let error = try error(
        of: "(function(t) local c = {} for k, v in pairs(t) do c[k] = v end "
          + "return c end)(\(expression))", "e.bogus = 1")
      #expect(
        error?.description.contains("effect.bogus: effect.\(kind) has no field \"bogus\"") == true,
        "\(kind): \(String(describing: error))")
    }
  }

  @Test func aKeyThatIsNoNameIsShownAsLuaIndexesIt() throws {
    let error = try error(of: "effect.cancel('c')", "e[1] = true")
    #expect(
      error?.description.contains("effect[1]: effect.cancel has no field 1;") == true,
      "\(String(describing: error))")
  }

  /// An action returned where its effect belongs is said as such; a misspelt kind or request
  /// field gets "did you mean" (a new user's findings: `effect.kind: expected a string`, and
  /// `reponse` named with no suggestion).
  @Test func anActionForAnEffectAndMisspeltNamesAreSaid() throws {
    let action = try error(of: "{ type = 'bump', n = 1 }", "")
    #expect(
      action?.description
        == "the reducer returned a malformed effect for { type = \"go\" }, and the state was "
        + "rolled back: effect: expected an effect, got an action ({ n = 1, type = \"bump\" }). "
        + "To fix, send it with return effect.send(action), or return nothing")
    let kind = try error(of: "effect.send('x')", "e.kind = 'sned'")
    #expect(
      kind?.description.contains(#"effect.kind: unknown effect kind "sned" (did you mean send?)"#)
        == true, "\(String(describing: kind))")
    let field = try error(
      of: "effect.http({ url = 'http://127.0.0.1:1/', response = 'got' })",
      "e.request.reponse = e.request.response; e.request.response = nil")
    #expect(
      field?.description.contains("takes no such field (did you mean response?)") == true,
      "\(String(describing: field))")
  }

  @Test func aMisspeltFieldIsNamedWithTheFieldsThereAre() throws {
    let error = try error(of: "effect.cancel('c')", "e.ids = { 1 }")
    #expect(
      error?.description
        == "the reducer returned a malformed effect for { type = \"go\" }, and the state was "
        + "rolled back: effect.ids: effect.cancel has no field \"ids\" (did you mean id?); its "
        + "fields are id. To "
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

  /// A child's effect goes through `scope`/`for_each`'s wrapping (map_effect, scoped ids) and is
  /// checked as the same effect returned by a reducer: nothing of it is dropped on the way.
  @Test func aComposedChildsEffectIsCheckedAsItsOwn() throws {
    for (child, message) in [
      (
        "local m = effect.merge(effect.send('tick')) m.bogus = true return m",
        "effect.bogus: effect.merge has no field \"bogus\""
      ),
      (
        "return { kind = 'concat', effects = { effect.send('tick'), nil, { kind = 'sned' } } }",
        "effect.effects: expected a list of effects, got table"
      ),
      ("return 5", "effect: expected an effect (a table made by composable.effect), got integer"),
      ("return effect.cancel(nil)", ".id:"),
    ] {
      let feature = try LuaFeature(
        source: """
          local composable = require("composable")
          local effect = require("composable.effect")
          local Child = { reduce = function(state, action) state.n = 1 \(child) end }
          return { reduce = composable.scope{ state = "child", action = "child", reducer = Child } }
          """, file: "parent.lua", state: ["child": ["n": 0]])
      let outcome = feature.step(
        ["type": "child", "action": "go"], LuaStepContext(dependencies: nil, effects: .check))
      #expect(
        outcome.error?.description.contains(message) == true,
        "\(child): \(String(describing: outcome.error))")
      #expect(try feature.state() == ["child": ["n": 0]])
    }
  }

  @Test func anOptionsValueMustBeABoolean() throws {
    let error = try self.error(
      of: "effect.cancellable(effect.send('x'), 'c', { cancel_in_flight = 'yes' })", "")
    #expect(
      error?.description.contains(
        "effect.cancellable: option cancel_in_flight: expected a boolean, got string") == true,
      "\(String(describing: error))")
    let made = try self.error(
      of: "effect.cancel('c')",
      "e = { kind = 'throttle', effect = effect.send('x'), id = 't', seconds = 1, latest = 'no' }")
    #expect(
      made?.description.contains("effect.latest: expected a boolean, got string") == true,
      "\(String(describing: made))")
  }

  /// effect.none is one table every feature shares: a field set on it is refused, so that one
  /// bad action cannot break every later one.
  @Test func effectNoneTakesNoField() throws {
    let error = try self.error(of: "effect.none", "effect.none.bogus = 1")
    #expect(
      error?.description.contains("effect.none is shared and takes no field (bogus)") == true,
      "\(String(describing: error))")
    let plain = try LuaFeature(
      source: """
        local effect = require("composable.effect")
        return { reduce = function() return effect.none end }
        """, file: "none.lua")
    #expect(plain.step("go", LuaStepContext(dependencies: nil, effects: .check)).error == nil)
  }
}
