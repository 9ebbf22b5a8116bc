import Composable
@testable import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// What a feature's running effects hold in the host is bounded as its VM is: at most 100,000
/// effects that may still run, holding at most 256 MiB of data. A result that would go past
/// either fails its action, which is rolled back; an effect that ends, is cancelled or is
/// dropped gives its share back.
@Suite struct EffectsInFlightTests {
  static let source = """
    local effect = require("composable.effect")
    return { reduce = function(state, action)
      if action.type == "x" then return end
      state.n = (state.n or 0) + 1
      if action.type == "timers" then
        local list = {}
        for i = 1, 9000 do list[i] = effect.after(1000 + i, { type = "x" }) end
        return effect.cancellable(effect.merge(table.unpack(list)), "timers")
      elseif action.type == "big" then
        -- 8 MiB each, a new string in each action.
        return effect.after(1000, { type = "x", s = string.rep("x", 8 << 20) })
      elseif action.type == "later" then
        -- 8 MiB sent after a wait: in a concatenation, a debounce, or behind a throttle.
        local big = effect.send({ type = "x", s = string.rep("x", 8 << 20) })
        if action.how == "concat" then
          return effect.concat(effect.after(1000, { type = "x" }), big)
        elseif action.how == "debounce" then
          return effect.debounce(big, "d" .. state.n, 1000)
        else
          local id = "t" .. state.n
          return effect.merge(
            effect.throttle(effect.send({ type = "x" }), id, 1000), effect.throttle(big, id, 1000))
        end
      elseif action.type == "wrapped" then
        -- 8 MiB made by the wrapper, not given to the effect.
        local big = string.rep("x", 8 << 20)
        return require("composable").map_effect(effect.after(1000, "a"), function()
          return { type = "x", s = big }
        end)
      elseif action.type == "now" then
        return effect.send({ type = "x", s = string.rep("x", 8 << 20) })
      elseif action.type == "named" then
        return effect.cancellable(effect.after(1000, { type = "x" }), string.rep("i", action.n))
      elseif action.type == "stop" then
        return effect.cancel("timers")
      end
    end }
    """

  /// On the live clock: the timers wait for 1,000 seconds and more, until cancelled (a test
  /// clock looks over every sleeper at each cancellation, which 100,000 of them make slow).
  func store() throws -> (Store<LuaFeatureHandle, LuaValue>, LuaFeature, Errors) {
    let feature = try LuaFeature(source: Self.source, file: "flight.lua")
    let errors = Errors()
    let dependencies = DependencyValues.live
    let store = Store(
      initialState: LuaFeatureHandle(feature: feature),
      reducer: LuaFeatureReducer<LuaFeatureHandle>(
        feature: feature, dependencies: dependencies, readState: { LuaFeatureHandle(feature: $0) },
        onError: { errors.append($0) }))
    return (store, feature, errors)
  }

  @Test func moreThan100000RunningEffectsFailTheAction() async throws {
    let (store, feature, errors) = try store()
    for _ in 1...12 { _ = await store.send("timers") }  // 11 x 9,000 + 1,000 fit
    await Task.yield()
    #expect(
      errors.all.map(\.description) == [
        """
        the reducer returned a malformed effect for { type = "timers" }, and the state was \
        rolled back: effect.effect.effects[1001]: more than 100000 effects would be running at \
        once (timers, delayed actions, coroutines and requests not yet ended). To fix, cancel \
        effects that are no longer needed (effect.cancellable and effect.cancel), or start fewer
        """
      ])
    #expect(try feature.state() == ["n": 11], "the twelfth is rolled back")
    // Cancelled, they give their share back: the next action's timers start.
    await store.send("stop").finish()
    // They end on their own tasks, each giving its share back as it goes.
    for _ in 0..<6_000 where feature.effectsInFlight.count > 0 {
      try await Task.sleep(for: .milliseconds(10))
    }
    #expect(feature.effectsInFlight.count == 0)
    _ = await store.send("timers")
    #expect(errors.all.count == 1)
    _ = await store.send("stop")
  }

  @Test func runningEffectsHoldAtMost256MiBOfData() async throws {
    let (store, feature, errors) = try store()
    for _ in 1...32 { _ = await store.send("big") }  // 31 x 8 MiB and a little fit, not 32
    #expect(errors.all.count == 1)
    #expect(
      errors.all.first?.description.hasSuffix(
        "effect: the running effects would hold more than 256 MiB of data (the actions of "
          + "timers and delayed actions, requests' bodies, files' contents). To fix, send "
          + "smaller actions, or cancel effects that are no longer needed") == true,
      "\(errors.all)")
    #expect(try feature.state() == ["n": 31])
    await store.cancelAllEffects()
  }

  /// Sends `action` 32 times, each holding 8 MiB until it is sent: the 32nd goes past 256 MiB
  /// and fails, rolled back.
  func expectThe32ndFails(_ action: LuaValue) async throws {
    let (store, feature, errors) = try store()
    for _ in 1...32 { _ = await store.send(action) }
    #expect(errors.all.count == 1, "\(errors.all)")
    #expect(
      errors.all.first?.description.contains(
        "the running effects would hold more than 256 MiB of data") == true,
      "\(errors.all)")
    #expect(try feature.state() == ["n": 31])
    await store.cancelAllEffects()
  }

  /// An action that waits its turn holds its share as a timer's does, until it is sent.
  @Test(arguments: ["concat", "debounce", "throttle"])
  func actionsSentLaterHoldTheirData(how: String) async throws {
    try await expectThe32ndFails(["type": "later", "how": .string(LuaString(how))])
  }

  /// What is held is the action as it will be sent: a `map_effect` wrapper that makes a large
  /// one is counted at its size.
  @Test func aWrappersActionIsCountedAsSent() async throws {
    try await expectThe32ndFails("wrapped")
  }

  /// An action sent at once gives its share back when it is sent.
  @Test func actionsSentAtOnceGiveTheirShareBack() async throws {
    let (store, feature, errors) = try store()
    for _ in 1...40 { await store.send("now").finish() }
    #expect(errors.all.isEmpty, "\(errors.all)")
    #expect(feature.effectsInFlight.count == 0)
    #expect(try feature.state() == ["n": 40])
  }

  /// A cancel id is a name, kept and hashed while its effects run: at most 4096 bytes, the
  /// limit itself included.
  @Test func cancelIDsAreBounded() async throws {
    let (store, feature, errors) = try store()
    _ = await store.send(["type": "named", "n": 4096])
    #expect(errors.all.isEmpty, "\(errors.all)")
    _ = await store.send(["type": "named", "n": 4097])
    _ = await store.send(["type": "named", "n": 8_388_608])
    #expect(
      errors.all.map(\.description) == [4097, 8_388_608].map { n in
        """
        the reducer returned a malformed effect for { n = \(n), type = "named" }, and the \
        state was rolled back: effect.id: an id may hold at most 4096 bytes, this one holds \
        \(n). To fix, name the effect with a short string or a number
        """
      })
    #expect(try feature.state() == ["n": 1])
    await store.cancelAllEffects()
  }
}
