import Composable
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// An action an effect sends back is plain data, as the state is: checked where the effect is
/// read, so the reducer's action fails and rolls back with the field named, for every effect
/// that carries one (`send`, `after`, `every`, `send` inside `effect.run`, and what a
/// `map_effect` wrapper makes). A table reached twice (shared) is data; a cycle is not.
@Suite struct ActionsFromEffectsAreDataTests {
  static let source = """
    local composable = require("composable")
    local effect = require("composable.effect")
    local json = require("composable.json")

    local function made(kind)
      if kind == "function" then return { type = "x", f = print }
      elseif kind == "coroutine" then return { type = "x", co = coroutine.create(print) }
      elseif kind == "metatable" then
        return { type = "x", m = setmetatable({}, { __index = function() return 1 end }) }
      elseif kind == "userdata" then return { type = "x", null = json.null }
      elseif kind == "function key" then return { type = "x", [print] = true }
      elseif kind == "cycle" then local t = { type = "x" }; t.self = t; return t
      elseif kind == "deep" then
        local t = {}
        for _ = 1, 250 do t = { t } end
        return { type = "x", deep = t }
      elseif kind == "shared" then
        local s = { "leaf" }
        for _ = 1, 8 do s = { s, s, n = #s } end
        return { type = "received", s = s, also = s }
      end
    end

    return {
      initial_state = function() return { received = 0 } end,
      reduce = function(state, action)
        if action.type == "go" then
          state.touched = (state.touched or 0) + 1
          local a = made(action.kind)
          if action.effect == "send" then return effect.send(a)
          elseif action.effect == "after" then return effect.after(0, a)
          elseif action.effect == "every" then return effect.every(1, a)
          elseif action.effect == "run" then return effect.run(function(send) send(a) end)
          elseif action.effect == "mapped" then
            return composable.map_effect(effect.send({ type = "x" }), function() return a end)
          end
        elseif action.type == "received" then
          state.received = state.received + 1
          state.size = #action.s + #action.also
        end
      end,
    }
    """

  static let refused = ["function", "coroutine", "metatable", "userdata", "function key"]

  /// A live store over the feature, its errors collected.
  struct Host {
    let feature: LuaFeature
    let store: Store<LuaFeatureHandle, LuaValue>
    let errors = Errors()

    init() throws {
      feature = try LuaFeature(source: ActionsFromEffectsAreDataTests.source, file: "feature.lua")
      let errors = self.errors
      store = Store(
        initialState: LuaFeatureHandle(feature: feature),
        reducer: LuaFeatureReducer<LuaFeatureHandle>(
          feature: feature, dependencies: .live, readState: { LuaFeatureHandle(feature: $0) },
          onError: { errors.append($0) }))
    }

    /// Sends `go` for `effect` carrying `kind`; waits for what it started unless the effect
    /// ticks forever. The errors it caused and the state after.
    func go(_ effect: String, _ kind: String) async throws -> ([LuaFeatureError], LuaValue) {
      let before = errors.all.count
      let task = await store.send([
        "type": "go", "effect": .string(LuaString(effect)), "kind": .string(LuaString(kind)),
      ])
      if effect == "every" {
        await store.withIsolation { _ in () }
        await store.cancelAllEffects()
      } else {
        await task.finish()
      }
      return (Array(errors.all.dropFirst(before)), try feature.state())
    }
  }

  /// The field and the words, for what the reducer returns right away.
  static func expected(_ effect: String, _ kind: String) -> (path: String, message: String) {
    let rule = LuaAction.dataRule
    let (field, what): (String, String) =
      switch kind {
      case "function": (".f", "a function is not data")
      case "coroutine": (".co", "a coroutine is not data")
      case "metatable": (".m", "a table with a metatable is not data")
      case "userdata": (".null", "a userdata is not data")
      default: ("", "a key that is a function is not data")
      }
    if effect == "mapped" {
      return ("effect.wrappers", "effect.send: the wrapped action\(field): \(what) (\(rule))")
    }
    return ("effect.action" + field, "effect.\(effect): \(what) (\(rule))")
  }

  @Test(arguments: ["send", "after", "every", "mapped"], refused)
  func whatIsNotDataFailsTheActionNamingTheField(_ effect: String, _ kind: String) async throws {
    let host = try Host()
    let (errors, state) = try await host.go(effect, kind)
    let found = errors.map { error -> String in
      guard case let .malformedEffect(_, path, message) = error else { return "\(error)" }
      return "\(path): \(message)"
    }
    let (path, message) = Self.expected(effect, kind)
    #expect(found == ["\(path): \(message)"])
    #expect(state.touched == .nil, "the action was rolled back")
    #expect(state.received == 0)
  }

  /// The issue's example, whole.
  @Test func theIssuesExampleIsRefusedInTheseWords() async throws {
    let feature = try LuaFeature(
      source: """
        local effect = require("composable.effect")
        return { reduce = function(state, action)
          state.n = 1
          return effect.after(1, { type = "x", f = print })
        end }
        """, file: "feature.lua")
    let (store, errors) = storeCollectingErrors(feature)
    await store.send("go").finish()
    #expect(errors.all.map(\.description) == [
      """
      the reducer returned a malformed effect for { type = "go" }, and the state was rolled \
      back: effect.action.f: effect.after: a function is not data (an action holds nil, \
      booleans, numbers, strings and tables of these, as the state does)
      """
    ])
    #expect(try feature.state() == [:])
  }

  /// Inside `effect.run` the reducer has returned: the coroutine's `send` fails as the
  /// coroutine's error, naming the field, and nothing is sent.
  @Test(arguments: refused)
  func whatIsNotDataIsNotSentFromRun(_ kind: String) async throws {
    let host = try Host()
    let (errors, state) = try await host.go("run", kind)
    let (field, _) = Self.expected("send", kind)
    let what = Self.expected("send", kind).message.dropFirst("effect.send: ".count)
    #expect(
      errors == [
        .effect(
          action: #"{ effect = "run", kind = "\#(kind)", type = "go" }"#,
          error: .conversion(
            path: "send(action)" + field.dropFirst("effect.action".count),
            message: String(what)))
      ])
    #expect(state.received == 0)
  }

  /// A cycle, or nesting deeper than a state may be, is refused as the snapshot of what the
  /// reducer returned is read: the action fails and rolls back, naming the field.
  @Test(arguments: ["send", "after", "every"], ["cycle", "deep"])
  func aCycleOrTooDeepAnActionFailsTheAction(_ effect: String, _ kind: String) async throws {
    let host = try Host()
    let (errors, state) = try await host.go(effect, kind)
    #expect(errors.count == 1)
    guard case let .malformedEffect(_, path, message) = errors.first else {
      Issue.record("expected a malformed effect, got \(errors)")
      return
    }
    if kind == "cycle" {
      #expect(path == "effect.action.self")
      #expect(message == "cycle: the table contains itself")
    } else {
      #expect(path.hasPrefix("effect.action.deep[1][1]"))
      #expect(message == "nested more than 200 levels deep")
    }
    #expect(state.touched == .nil)
  }

  /// A table reached twice is data: sent, delayed, sent from `run` or made by a wrapper, it
  /// arrives whole.
  @Test(arguments: ["send", "after", "run", "mapped"])
  func aSharedTableIsData(_ effect: String) async throws {
    let host = try Host()
    let (errors, state) = try await host.go(effect, "shared")
    #expect(errors == [])
    #expect(state.touched == 1)
    #expect(state.received == 1)
    #expect(state.size == 4)
  }
}
