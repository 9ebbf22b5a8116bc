import Composable
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// An `effect.run` coroutine that ends any way but by returning (cancelled, failed in its own
/// code, or stopped by the host for what it yielded) is closed: its `<close>` variables are,
/// as `coroutine.wrap` closes a coroutine that fails and a cancelled Swift task runs its
/// `defer`s. One a limit stopped is not, as `coroutine.close` then does not.
@Suite struct ToBeClosedInEffectsTests {
  static let source = """
    local effect = require("composable.effect")
    closed = {}
    local function closer(name)
      return setmetatable({}, { __close = function(_, err)
        closed[#closed + 1] = name .. (err and (": " .. tostring(err):gsub("^.-:%d+: ", "")) or "")
      end })
    end
    return {
      initial_state = function() return { n = 0 } end,
      reduce = function(state, action)
        local t = action.type
        if t == "waits" then
          return effect.cancellable(effect.run(function(send)
            local c <close> = closer("cancelled")
            sleep(1000)
          end), "waits")
        elseif t == "stop" then
          return effect.cancel("waits")
        elseif t == "fails" then
          return effect.run(function(send)
            local c <close> = closer("failed")
            error("boom")
          end)
        elseif t == "bad_send" then
          return effect.run(function(send)
            local c <close> = closer("refused")
            send({ type = "x", f = print })
          end)
        elseif t == "returns" then
          return effect.run(function(send)
            local c <close> = closer("returned")
          end)
        elseif t == "close_fails" then
          return effect.run(function(send)
            local c <close> = setmetatable({}, { __close = function() error("in close") end })
            sleep(1000)
          end)
        elseif t == "fails_twice" then
          return effect.run(function(send)
            local c <close> = setmetatable({}, { __close = function() error("in close too") end })
            error("boom")
          end)
        elseif t == "loops" then
          return effect.run(function(send)
            local c <close> = closer("looped")
            while true do end
          end)
        end
      end,
    }
    """

  func closed(_ feature: LuaFeature, count: Int) async throws -> [LuaValue] {
    for _ in 0..<500 {
      let list = try feature.evaluate("closed").first ?? .nil
      if list.tableValue?.count ?? 0 >= count { return list.tableValue?.sequence ?? [] }
      try await Task.sleep(for: .milliseconds(10))
    }
    return try feature.evaluate("closed").first?.tableValue?.sequence ?? []
  }

  @Test func aCancelledRunClosesItsVariables() async throws {
    let feature = try LuaFeature(source: Self.source, file: "close.lua")
    let (store, errors) = storeCollectingErrors(feature)
    _ = await store.send("waits")
    try await Task.sleep(for: .milliseconds(50))
    #expect(try await closed(feature, count: 0).isEmpty)
    await store.send("stop").finish()
    #expect(try await closed(feature, count: 1) == ["cancelled"])
    #expect(errors.all.isEmpty)
  }

  @Test func aRunThatFailsOrIsRefusedClosesItsVariables() async throws {
    let feature = try LuaFeature(source: Self.source, file: "close.lua")
    let (store, errors) = storeCollectingErrors(feature)
    await store.send("fails").finish()
    await store.send("bad_send").finish()
    await store.send("returns").finish()
    #expect(try await closed(feature, count: 3) == ["failed: boom", "refused", "returned"])
    #expect(errors.all.count == 2, "\(errors.all)")
  }

  @Test func anErrorInACloseHandlerIsReported() async throws {
    let feature = try LuaFeature(source: Self.source, file: "close.lua")
    let (store, errors) = storeCollectingErrors(feature)
    _ = await store.send("close_fails")
    try await Task.sleep(for: .milliseconds(50))
    await store.cancelAllEffects()
    for _ in 0..<6000 where errors.all.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
    #expect(
      errors.all.map(\.description) == [
        #"an effect of { type = "close_fails" } failed: close.lua:35: in close"#
      ])
  }

  /// A run that failed and whose `__close` handler fails too reports both, the run's first, as
  /// one effect's failure (they were two reports, and a run counted "2 effects failed"): the
  /// handler's error is not taken for the first one.
  @Test func aCloseHandlerThatFailsAfterTheRunFailedIsReported() async throws {
    let feature = try LuaFeature(source: Self.source, file: "close.lua")
    let (store, errors) = storeCollectingErrors(feature)
    await store.send("fails_twice").finish()
    let messages = errors.all.map { $0.description.split(separator: "\n").first ?? "" }
    #expect(
      messages == [
        #"an effect of { type = "fails_twice" } failed: close.lua:41: boom; then closing its "#
          + "to-be-closed variables failed: close.lua:40: in close too"
      ], "\(messages)")
  }

  @Test func aRunALimitStoppedIsNotClosed() async throws {
    let feature = try LuaFeature(
      source: Self.source, file: "close.lua", limits: LuaLimits(instructions: 100_000))
    let (store, errors) = storeCollectingErrors(feature)
    await store.send("loops").finish()
    #expect(errors.all.count == 1)
    // The run's task has ended: a close would have run before it did.
    #expect(try await closed(feature, count: 0).isEmpty)
  }
}
