import Composable
import ComposableLua
import LuaKit
import TestSupport
import Testing

/// Seconds typed as a person or a script would, typos included: each is a clear error naming
/// the field, never a trap in a Double -> Int64 conversion.
@Suite struct SecondsTests {
  static let source = """
    local effect = require("composable.effect")
    return {
      initial_state = function() return { n = 0 } end,
      reduce = function(state, action)
        local s = action.seconds
        if action.type == "every" then return effect.every(s, "tick")
        elseif action.type == "after" then return effect.after(s, "tick")
        elseif action.type == "debounce" then return effect.debounce(effect.send("tick"), "d", s)
        elseif action.type == "throttle" then return effect.throttle(effect.send("tick"), "t", s)
        elseif action.type == "sleep" then return effect.run(function() sleep(s) end)
        elseif action.type == "http" then
          return effect.http{ url = "http://x.test/", timeout = s, response = "done" }
        elseif action.type == "done" then state.n = state.n + 1 state.error = action.error
        end
      end,
    }
    """

  /// The message of the malformed effect `action` returned.
  private func malformed(_ action: LuaValue) throws -> String? {
    let feature = try LuaFeature(source: Self.source, file: "timers.lua")
    let errors = Errors()
    let reducer = LuaFeatureReducer<LuaFeatureHandle>(
      feature: feature, dependencies: .live, readState: { LuaFeatureHandle(feature: $0) },
      onError: { errors.append($0) })
    var handle = LuaFeatureHandle(feature: feature)
    _ = reducer.reduce(into: &handle, action: action)
    guard case let .malformedEffect(_, path, message)? = errors.all.first else { return nil }
    return "\(path): \(message)"
  }

  @Test(arguments: [
    (LuaValue.number(1e300), "1e+300"), (.number(.infinity), "math.huge"),
    (.number(-.infinity), "-math.huge"), (.zeroOverZero, "0/0"),
    (.number(-LuaValue.zeroOverZero.doubleValue!), "-(0/0)"), (-1, "-1"), ("soon", "string"),
  ])
  func aDurationThatIsNoNumberOfSecondsIsNamed(seconds: LuaValue, shown: String) throws {
    for kind in ["after", "every", "debounce", "throttle"] {
      #expect(
        try malformed(["type": .string(LuaString(kind)), "seconds": seconds])
          == "effect.seconds: expected a number of seconds from 0 to 1e9, got \(shown)")
    }
  }

  @Test func aTimerEveryZeroSecondsIsRefused() throws {
    #expect(
      try malformed(["type": "every", "seconds": 0])
        == "effect.seconds: expected at least a nanosecond (1e-9 seconds) between ticks, got 0")
    // Less than half a nanosecond is 0 to a clock; the message quotes what was given.
    #expect(
      try malformed(["type": "every", "seconds": 1e-300])
        == "effect.seconds: expected at least a nanosecond (1e-9 seconds) between ticks, "
        + "got 1e-300")
    #expect(
      try malformed(["type": "every", "seconds": 5e-10])
        == "effect.seconds: expected at least a nanosecond (1e-9 seconds) between ticks, "
        + "got 5e-10")
    #expect(try malformed(["type": "every", "seconds": 1e-9]) == nil)
    #expect(try malformed(["type": "after", "seconds": 0]) == nil)  // at once: fine
  }

  @Test func aSleepTooLongIsAnEffectError() async throws {
    let feature = try LuaFeature(source: Self.source, file: "timers.lua")
    let (store, errors) = storeCollectingErrors(feature)
    await store.send(["type": "sleep", "seconds": 1e16]).finish()
    #expect(
      errors.all.map(\.description) == [
        """
        an effect of { seconds = 1e+16, type = "sleep" } failed: sleep(seconds): expected a number \
        of seconds from 0 to 1e9, got 1e+16
        """
      ])
  }

  /// Checked when the reducer returns the effect, as every field of a request is: the action
  /// fails, naming the field, and nothing is sent.
  @Test func aTimeoutThatIsNotANumberOfSecondsFailsTheAction() async throws {
    let store = try testStore(Self.source) {
      $0.http = HTTPClient { _ in HTTPResponse(status: 200) }
    }
    await withKnownIssue {
      await store.send(["type": "http", "seconds": .zeroOverZero])
    } matching: { issue in
      "\(issue)".contains(
        "effect.request.timeout: effect.http: expected a number of seconds from 0 to 1e9, more "
          + "than 0, got 0/0")
    }
  }

  @Test func aPersistDebounceOfForeverIsALoadError() {
    #expect {
      try LuaFeature(
        source: """
          local composable = require("composable")
          return {
            persist = composable.persist{ path = "x.json", debounce = math.huge },
            reduce = function() end,
          }
          """, file: "saved.lua")
    } throws: { error in
      (error as? LuaFeatureError)?.description == """
        saved.lua did not load: persist.debounce: expected a number of seconds from 0 to 1e9, \
        got math.huge
        """
    }
  }

  @Test func theConversionChecks() {
    #expect(Seconds.duration(1.5) == .milliseconds(1500))
    #expect(Seconds.duration(0) == .zero)
    #expect(Seconds.duration(1e9) == .seconds(1_000_000_000))
    for bad in [Double.nan, .infinity, -.infinity, -0.001, 1e9 + 1, 1e300] {
      #expect(Seconds.duration(bad) == nil)
    }
  }
}
