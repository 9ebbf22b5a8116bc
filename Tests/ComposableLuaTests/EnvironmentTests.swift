import Composable
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

@Suite struct EnvironmentTests {
  static let source = """
    return {
      initial_state = function() return { items = {} } end,
      reduce = function(state, action, env)
        if action.type == "add" then
          table.insert(state.items, {
            id = env.uuid(), at = env.now(), roll = env.random(1, 6), greeting = env.greeting,
          })
        end
      end,
    }
    """

  /// A TestStore over `feature` whose uuid, date and random are the test's.
  static func controlledStore(_ feature: LuaFeature) throws -> TestStore<LuaValue, LuaValue> {
    TestStore(
      initialState: try feature.state(),
      reducer: { LuaFeatureReducer<LuaValue>(feature: feature, dependencies: $0) },
      dependencies: {
        $0.uuid = .incrementing
        $0.date = .constant(Date(timeIntervalSince1970: 1_000))
        $0.random = RandomSource(seed: 42)
      })
  }

  @Test func testsControlUUIDsDatesAndRandomness() async throws {
    let feature = try LuaFeature(source: Self.source, file: "env.lua", env: ["greeting": "hi"])
    let store = try Self.controlledStore(feature)
    let expectedRoll = RandomSource(seed: 42).integer(in: 1...6)
    await store.send("add") {
      $0.items = [[
        "id": "00000000-0000-0000-0000-000000000000", "at": .integer(1000),
        "roll": .integer(expectedRoll), "greeting": "hi",
      ]]
    }
  }

  /// An expression that looks into the feature (the REPL's `= ...`) may read `env.now()`, but
  /// `env.uuid()` and `env.random()` refuse: a draw would change what the next action gets.
  @Test func lookingIntoAFeatureDrawsNothing() async throws {
    let feature = try LuaFeature(source: Self.source, file: "env.lua", env: ["greeting": "hi"])
    let store = try Self.controlledStore(feature)
    for name in ["uuid", "random"] {
      #expect {
        try feature.evaluate("env.\(name)()")
      } throws: { error in
        "\(error)".contains(
          "env.\(name)() draws from the store's generator, so here it would change what the "
            + "next action gets")
      }
    }
    let expectedRoll = RandomSource(seed: 42).integer(in: 1...6)
    await store.send("add") {
      $0.items = [[
        "id": "00000000-0000-0000-0000-000000000000", "at": .integer(1000),
        "roll": .integer(expectedRoll), "greeting": "hi",
      ]]
    }
    #expect(try feature.evaluate("type(env.now())") == ["number"])
  }

  /// An expression (the REPL's `=`) reads `env` as it is, nested tables included, and cannot
  /// change it, however it tries: an expression is not recorded, so what it changed, the next
  /// actions would get and a replay of the session would not (an attacker's finding).
  @Test func anExpressionCannotChangeEnv() throws {
    let source = """
      return {
        initial_state = function() return { seen = "" } end,
        reduce = function(state, action, env)
          state.seen = tostring(env.step) .. " " .. table.concat(env.tags, ",") .. " "
            .. tostring(env.nested.deep.x)
        end,
      }
      """
    let env: LuaValue = ["tags": ["a", "b"], "nested": ["deep": ["x": 1]]]
    let feature = try LuaFeature(source: source, file: "env.lua", env: env)
    #expect(try feature.evaluate("env.tags[2], #env.tags, env.nested.deep.x") == ["b", 2, 1])
    let counted = try feature.evaluate(
      "(function() local n = 0 for _, v in pairs(env.tags) do n = n + #v end return n end)()")
    #expect(counted == [2])
    #expect(try feature.evaluate("env.tags == env.tags, type(env.tags)") == [true, "table"])
    // Read as env itself: whole, and through next, rawget and rawlen.
    let whole = try feature.evaluate("env").first ?? .nil
    #expect(whole.tags == env.tags && whole.nested == env.nested && whole.uuid.typeName == "function")
    #expect(try feature.evaluate("rawget(env, 'tags'), rawlen(env.tags)") == [["a", "b"], 2])
    #expect(try feature.evaluate("next(env.nested)") == ["deep", ["x": 1]])
    let writes = [
      "env.step = 100", "env.tags[1] = 'z'", "table.insert(env.tags, 'z')",
      "table.sort(env.tags, function(a, b) return a > b end)", "env.nested.deep.x = 2",
      "setmetatable(env, {})", "rawset(env, 'step', 100)", "rawset(env.tags, 1, 'z')",
    ]
    for write in writes {
      _ = try? feature.evaluate("(function() \(write) end)()")
    }
    #expect {
      try feature.evaluate("(function() env.step = 100 end)()")
    } throws: { error in
      "\(error)".hasPrefix(
        "env is read-only in an expression: an expression is not recorded, so a change to env "
          + "would not be in the session, and a replay would not see it")
    }
    _ = try feature.step("look")
    #expect(try feature.state().seen == "nil a,b 1")
  }

  /// Nor the feature's globals, or the tables they hold (`string`, a table the feature keeps in
  /// a global): each such change is refused, said, and put back, so the next action reads what
  /// it would have read in a replay (an attacker's finding: a replay ended elsewhere).
  @Test func anExpressionCannotChangeGlobals() throws {
    let source = """
      step = 1
      settings = { size = 2 }
      return {
        initial_state = function() return { seen = "" } end,
        reduce = function(state)
          state.seen = step .. " " .. settings.size .. " " .. ("ab"):rep(2) .. " "
            .. tostring(made) .. " " .. tostring(math.extra)
        end,
      }
      """
    let feature = try LuaFeature(source: source, file: "globals.lua")
    let writes = [
      ("step = 50", "step"), ("settings.size = 9", "size"), ("string.rep = nil", "rep"),
      ("made = true", "made"), ("math.extra = 1", "extra"), ("settings.more = {}", "more"),
      // The strings' metatable, which `("ab"):rep(2)` goes through (an attacker's finding).
      ("getmetatable('').__index = { rep = function() return 'H' end }", "__index"),
      ("getmetatable('').__add = function() return 7 end", "__add"),
    ]
    for (write, name) in writes {
      #expect {
        try feature.evaluate("(function() \(write) end)()")
      } throws: { error in
        "\(error)".hasPrefix(
          "an expression cannot change the feature's globals or their tables (it changed "
            + "\(name)): an expression is not recorded")
      }
    }
    #expect(
      try feature.evaluate("step, settings.size, ('x'):rep(2), pcall(function() return '1' + '2' end)")
        == [1, 2, "xx", true, 3])
    _ = try feature.step("look")
    #expect(try feature.state().seen == "1 2 abab nil nil")
  }

  /// `env.now()` is an integer when the time is whole (a test's `now = 1700000000` reads back
  /// as written), a float otherwise.
  @Test(arguments: [(1_700_000_000.0, LuaValue.integer(1_700_000_000)), (1.5, .number(1.5)),
    (-2.0, .integer(-2)), (1e300, .number(1e300))])
  func nowIsAnIntegerWhenWhole(_ seconds: Double, _ expected: LuaValue) async throws {
    let feature = try LuaFeature(
      source: """
        return { reduce = function(state, action, env)
          state.at = env.now() state.kind = math.type(state.at) end }
        """, file: "now.lua")
    let store = TestStore(
      initialState: try feature.state(),
      reducer: { LuaFeatureReducer<LuaValue>(feature: feature, dependencies: $0) },
      dependencies: { $0.date = .constant(Date(timeIntervalSince1970: seconds)) })
    await store.send("tick") {
      $0.at = expected
      $0.kind = expected.intValue != nil ? "integer" : "float"
    }
  }

  @Test func theSameSeedGivesTheSameRolls() throws {
    func rolls() throws -> LuaValue {
      let feature = try LuaFeature(source: """
        return {
          initial_state = function() return { rolls = {} } end,
          reduce = function(state, action, env)
            for i = 1, 5 do table.insert(state.rolls, env.random(6)) end
            state.unit = env.random() < 1
          end,
        }
        """, file: "dice.lua")
      var dependencies = DependencyValues.test
      dependencies.random = RandomSource(seed: 7)
      feature.use(dependencies)
      _ = try feature.step("roll")
      return try feature.state()
    }
    let first = try rolls()
    #expect(try rolls() == first)
    #expect(first.rolls.tableValue?.count == 5)
    #expect(first.unit == true)
  }

  @Test func badArgumentsToRandomAreClearErrors() throws {
    let feature = try LuaFeature(source: """
      return { reduce = function(state, action, env) env.random(6, 1) end }
      """, file: "bad.lua")
    let error = featureError { _ = try feature.step("roll") }
    guard case let .reduce(_, luaError) = error else { Issue.record("expected a reduce error"); return }
    #expect(luaError.message == "bad.lua:1: bad argument #1 to 'env.random' (interval is empty)")
  }

  /// `env.random` takes its bounds as `math.random` does: floats with an integer's value,
  /// `random(0)` for any integer, and Lua's words (with its own name) for what it refuses.
  @Test(arguments: [
    ("env.random(1.0, 6.0)", nil), ("env.random(0)", nil), ("env.random(-3, -3)", nil),
    ("env.random(1.5, 6)", "bad argument #1 to 'env.random' (number has no integer representation)"),
    ("env.random(1, 2^63)", "bad argument #2 to 'env.random' (number has no integer representation)"),
    ("env.random('x')", "bad argument #1 to 'env.random' (number expected, got string)"),
    ("env.random(0, -1)", "bad argument #1 to 'env.random' (interval is empty)"),
    ("env.random(-1)", "bad argument #1 to 'env.random' (interval is empty)"),
    ("env.random(1, 2, 3)", "wrong number of arguments to 'env.random'"),
  ] as [(String, String?)])
  func randomTakesItsBoundsAsMathRandomDoes(call: String, expected: String?) throws {
    let feature = try LuaFeature(source: """
      return {
        initial_state = function() return {} end,
        reduce = function(state, action, env) state.got = math.type(\(call)) end,
      }
      """, file: "roll.lua")
    do {
      try feature.step("roll")
      #expect(expected == nil, "\(call) gave no error")
      #expect(try feature.state().got == "integer")
    } catch {
      guard let expected else {
        Issue.record("\(call): \(error)")
        return
      }
      #expect("\(error)".contains("roll.lua:3: \(expected)"), "\(error)")
    }
  }

  /// Two stores over one feature: `env` answers each action from the dependencies of the store
  /// that runs it, whichever reducer was made last.
  @Test func twoReducersOverOneFeatureEachUseTheirOwnDependencies() async throws {
    let feature = try LuaFeature(source: """
      return {
        initial_state = function() return {} end,
        reduce = function(state, action, env) state.id = env.uuid() end,
      }
      """, file: "ids.lua")
    func reducer(_ uuid: UUIDGenerator) -> LuaFeatureReducer<LuaValue> {
      var dependencies = DependencyValues.test
      dependencies.uuid = uuid
      return LuaFeatureReducer<LuaValue>(feature: feature, dependencies: dependencies)
    }
    let first = reducer(UUIDGenerator { UUID(uuidString: "00000000-0000-0000-0000-000000000001")! })
    let second = reducer(UUIDGenerator { UUID(uuidString: "00000000-0000-0000-0000-000000000002")! })
    var state = try feature.state()
    _ = first.reduce(into: &state, action: "make")
    #expect(state.id == "00000000-0000-0000-0000-000000000001")
    _ = second.reduce(into: &state, action: "make")
    #expect(state.id == "00000000-0000-0000-0000-000000000002")
    _ = first.reduce(into: &state, action: "make")
    #expect(state.id == "00000000-0000-0000-0000-000000000001")
  }

  /// A value that is no function under the name of one of the host's `env` functions hid it
  /// (`--env uuid=x`, a session's `env`): every `env.uuid()` was "attempt to call a string
  /// value". The feature does not load, naming it; a function there is a host's own answer.
  @Test(arguments: ["uuid", "now", "random"])
  func aValueCannotHideAnEnvFunction(name: String) throws {
    for value: LuaValue in ["x", 5, true, ["a": 1]] {
      let error = featureError {
        _ = try LuaFeature(source: Self.source, file: "feature.lua", env: [.string(LuaString(name)): value])
      }
      #expect(
        error
          == .load(
            file: "feature.lua",
            message: "env.\(name) is given a value (\(value.typeName)), where the "
              + "host's env.\(name)() goes. To fix, give the value another name (--uuid and "
              + "--seed set what env.uuid() and env.random() answer)"), "\(value)")
    }
    // Other names are the feature's.
    _ = try LuaFeature(source: Self.source, file: "feature.lua", env: ["uuids": "x"])
  }
}
