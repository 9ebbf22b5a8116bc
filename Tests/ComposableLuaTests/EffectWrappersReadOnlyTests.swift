import Composable
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// A `map_effect` wrapper reads the state but never writes it, whichever effect it wraps: the
/// wrappers of `send`, `after` and `every` run while the action that returned them is still
/// open, and those of `effect.run`'s sends and of responses run later. A write from any of them
/// raises the read-only error, so the action (or the effect) fails and nothing is written.
@Suite struct EffectWrappersReadOnlyTests {
  static let source = """
    local composable = require("composable")
    local effect = require("composable.effect")
    local kept

    return {
      initial_state = function() return { n = 0, list = { 1 } } end,
      reduce = function(state, action)
        kept = state
        if action.type == "go" then
          state.n = state.n + 1
          local inner
          if action.effect == "send" then inner = effect.send({ type = "x" })
          elseif action.effect == "after" then inner = effect.after(0, { type = "x" })
          elseif action.effect == "every" then inner = effect.every(1, { type = "x" })
          elseif action.effect == "run" then
            inner = effect.run(function(send) send({ type = "x" }) end)
          end
          return composable.map_effect(inner, function(a)
            if action.write == "field" then kept.hacked = true
            elseif action.write == "nested" then kept.list[1] = 99
            elseif action.write == "insert" then table.insert(kept.list, 7)
            end
            return { type = "wrapped", seen = kept.n, inner = a }
          end)
        elseif action.type == "wrapped" then
          state.seen = action.seen
        end
      end,
    }
    """

  struct Host {
    let feature: LuaFeature
    let store: Store<LuaFeatureHandle, LuaValue>
    let errors = Errors()

    init() throws {
      feature = try LuaFeature(source: EffectWrappersReadOnlyTests.source, file: "feature.lua")
      let errors = self.errors
      store = Store(
        initialState: LuaFeatureHandle(feature: feature),
        reducer: LuaFeatureReducer<LuaFeatureHandle>(
          feature: feature, dependencies: .live, readState: { LuaFeatureHandle(feature: $0) },
          onError: { errors.append($0) }))
    }

    func go(_ effect: String, write: String) async throws -> ([LuaFeatureError], LuaValue) {
      let task = await store.send([
        "type": "go", "effect": .string(LuaString(effect)), "write": .string(LuaString(write)),
      ])
      if effect == "every" {
        await store.withIsolation { _ in () }
        await store.cancelAllEffects()
      } else {
        await task.finish()
      }
      return (errors.all, try feature.state())
    }
  }

  @Test(arguments: ["send", "after", "every", "run"], ["field", "nested", "insert"])
  func aWrapperThatWritesFailsAndWritesNothing(_ effect: String, write: String) async throws {
    let host = try Host()
    let (errors, state) = try await host.go(effect, write: write)
    #expect(errors.count == 1)
    #expect(
      errors.first?.description.contains("state changes only in reduce: send an action") == true,
      "\(errors)")
    #expect(state.hacked == .nil)
    #expect(state.list == [1])
    #expect(state.seen == .nil, "the wrapped action was not sent")
    if effect == "run" {
      #expect(state.n == 1, "the reducer had returned: its action stands")
    } else {
      #expect(state.n == 0, "the action that returned the effect was rolled back")
    }
  }

  /// Reading is what wrappers are for: the state as the reducer left it.
  @Test(arguments: ["send", "after", "run"])
  func aWrapperReadsTheState(_ effect: String) async throws {
    let host = try Host()
    let (errors, state) = try await host.go(effect, write: "none")
    #expect(errors == [])
    #expect(state.n == 1)
    #expect(state.seen == 1)
  }
}
