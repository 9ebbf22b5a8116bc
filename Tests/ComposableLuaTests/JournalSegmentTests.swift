import Composable
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// The journal is kept on the stacks of Lua threads, 65,536 entries a thread (a stack holds at
/// most a million slots). An action may journal more than that: its writes must roll back in
/// full across the threads, its changes must read from all of them, and a journal that cannot
/// grow (the memory cap) must stop the action before its write, not after.
@Suite struct JournalSegmentTests {
  static let source = """
    return {
      initial_state = function()
        return { n = 0, items = {}, label = "start" }
      end,
      reduce = function(state, action)
        local t = action.type
        if t == "count" then  -- one key written again and again: one entry a write
          for i = 1, action.times do state.n = i end
          if action.late then state.label = "late" end
          if action.fail then error("after " .. action.times .. " writes") end
        elseif t == "fill" then  -- new tables: an adoption and a write each
          for i = 1, action.times do state.items[i] = { id = i } end
          if action.fail then error("after " .. action.times .. " tables") end
        elseif t == "forever" then
          local i = 0
          while true do i = i + 1; state.n = i end
        elseif t == "in_coroutine" then  -- journaled from another Lua thread's stack
          local writer = coroutine.wrap(function()
            for i = 1, action.times do
              state.n = i
              if i % 1000 == 0 then coroutine.yield() end
            end
            state.items.from_coroutine = { deep = true }
          end)
          for _ = 1, action.times // 1000 + 1 do writer() end
          if action.fail then error("after the coroutine") end
        elseif t == "small" then
          state.n = state.n + 1
          if action.fail then error("small") end
        end
      end,
    }
    """

  static let start: LuaValue = ["n": 0, "items": [:], "label": "start"]

  /// Reduces `action` on `feature`, running none of its effects.
  func reduce(_ feature: LuaFeature, _ action: LuaValue) throws {
    try feature.step(action)
  }

  /// What reducing `action` threw, or nil when it did not fail.
  func failure(_ feature: LuaFeature, _ action: LuaValue) -> LuaFeatureError? {
    featureError { try reduce(feature, action) }
  }

  @Test func writesOverManySegmentsRollBackInFull() throws {
    let feature = try LuaFeature(
      source: Self.source, file: "big.lua", limits: LuaLimits(memory: nil, instructions: nil))
    // 200,000 entries: four segments, the last one part full.
    let error = failure(feature, ["type": "count", "times": 200_000, "late": true, "fail": true])
    #expect(error?.description.contains("big.lua:10: after 200000 writes") == true)
    #expect(try feature.state() == Self.start)

    // 70,000 tables adopted and written, then undone: each table is given back as it was.
    #expect(failure(feature, ["type": "fill", "times": 70_000, "fail": true]) != nil)
    #expect(try feature.state() == Self.start)

    // Committed, then small actions roll back and commit as before.
    try reduce(feature, ["type": "fill", "times": 70_000])
    #expect(try feature.evaluate("#state.items, state.items[70000].id") == [70_000, 70_000])
    #expect(failure(feature, ["type": "small", "fail": true]) != nil)
    try reduce(feature, ["type": "small"])
    #expect(try feature.evaluate("state.n, #state.items, state.label") == [1, 70_000, "start"])
  }

  @Test func writesFromACoroutineOfTheReducerAreJournaled() throws {
    let feature = try LuaFeature(
      source: Self.source, file: "co.lua", limits: LuaLimits(memory: nil, instructions: nil))
    #expect(failure(feature, ["type": "in_coroutine", "times": 70_000, "fail": true]) != nil)
    #expect(try feature.state() == Self.start)
    try reduce(feature, ["type": "in_coroutine", "times": 5_000])
    #expect(try feature.evaluate("state.n, state.items.from_coroutine.deep") == [5_000, true])
  }

  @Test func aLargeJournalGivesItsMemoryBack() throws {
    let feature = try LuaFeature(
      source: Self.source, file: "big.lua", limits: LuaLimits(memory: nil, instructions: nil))
    try reduce(feature, ["type": "small"])
    let before = feature.memoryInUse()
    // 200,000 entries hold about 9.6 MB of stack while the action runs.
    try reduce(feature, ["type": "count", "times": 200_000])
    let after = feature.memoryInUse()
    #expect(after - before < 64 << 10, "held \(after - before) bytes more after the action")
    #expect(try feature.evaluate("state.n") == [200_000])
  }

  @Test func changesReadFromEverySegment() async throws {
    let feature = try LuaFeature(
      source: Self.source, file: "big.lua", limits: LuaLimits(memory: nil, instructions: nil))
    let printed = Locked<[String]>([])
    let store = Store(
      initialState: LuaFeatureHandle(feature: feature),
      reducer: LuaFeatureReducer<LuaFeatureHandle>(feature: feature, dependencies: .live)
        .printChanges(to: ChangePrinter { text in printed.withLock { $0.append(text) } }))
    // `n`'s old value is in the first segment, `label`'s (written last) in the second.
    await store.send(["type": "count", "times": 70_000, "late": true])
    #expect(
      printed.withLock { $0 } == [
        """
        received action:
          { late = true, times = 70000, type = "count" }
          − label = "start"
          + label = "late"
          − n = 0
          + n = 70000
        """
      ])
  }

  @Test func aJournalThatCannotGrowStopsTheActionBeforeItsWrite() throws {
    // The writes overwrite one key, so only the journal grows: it meets the cap.
    let feature = try LuaFeature(
      source: Self.source, file: "hog.lua",
      limits: LuaLimits(memory: 8 << 20, instructions: nil))
    let error = failure(feature, ["type": "forever"])
    guard case .reduce(_, .memoryLimit) = error else {
      Issue.record("expected the memory limit, got \(String(describing: error))")
      return
    }
    #expect(try feature.state() == Self.start)
    // The journal is usable after the failure, at the same cap.
    try reduce(feature, ["type": "count", "times": 1_000])
    #expect(try feature.evaluate("state.n") == [1_000])
    #expect(failure(feature, ["type": "small", "fail": true]) != nil)
    #expect(try feature.evaluate("state.n") == [1_000])
  }
}
