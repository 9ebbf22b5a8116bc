import Composable
import ComposableHost
import ComposableLua
import Foundation
import LuaKit

/// Time travel in a 10,000-action session of the todos feature with 1,000 todos (1,000 adds,
/// then 9,000 toggles of todos picked by a seeded generator), recorded through the REPL.
///
/// - `repl.goto10k_ms`: a `:goto N` to a random action, through the REPL session (cancelling
///   effects, restoring the checkpoint, replaying, reading the state, printing the difference):
///   p95 of 100 jumps; `repl.goto10k_max_ms` is the slowest.
/// - `replay.todos10k_ms`: `:replay` of the whole session (from the initial state, through the
///   reducer, effects checked but not run, checkpoints taken again); the median of 3.
/// - `replay.todos10k_ratio_vs_live`: that, over the time of sending the same 10,000 actions live
///   to a `Store` holding the feature (effects started), rounds side by side.
enum TimeTravelBenchmarks {
  static func run() async throws -> [Figure] {
    let directory = try BenchmarkFiles.makeScratchDirectory("timetravel")
    defer { try? FileManager.default.removeItem(at: directory) }
    let examples = BenchmarkFiles.examples
    for name in ["todos.lua", "todo.lua"] {
      try FileManager.default.copyItem(
        at: examples.appendingPathComponent("todos/\(name)"),
        to: directory.appendingPathComponent(name))
    }
    let file = directory.appendingPathComponent("todos.lua")
    let feature = try LuaFeature(contentsOf: file)
    let session = try ReplSession(
      feature: feature, file: file, env: [:], dependencies: .live, clock: ReplClock(paused: true),
      write: { _ in })
    for index in 0..<1_000 {
      _ = await session.handle(#"{ type = "add", title = "todo \#(index)" }"#)
    }
    let ids = try feature.state().todos.tableValue?.sequence.map(\.id) ?? []
    guard ids.count == 1_000 else { throw BenchmarkError("the adds made \(ids.count) todos") }
    let random = RandomSource(seed: 7)
    for _ in 0..<9_000 {
      let id = ids[random.integer(in: 0...999)]
      _ = await session.handle("{ type = \"todo\", id = \(id), action = \"toggled\" }")
    }
    await session.settle()
    let timeline = session.timeline
    guard timeline.count == 10_000 else {
      throw BenchmarkError("the session recorded \(timeline.count) actions, not 10,000")
    }
    let final = try feature.state()

    var jumps: [Double] = []
    for _ in 0..<100 {
      let target = random.integer(in: 0...10_000)
      let start = ContinuousClock.now
      _ = await session.handle(":goto \(target)")
      jumps.append(Seconds.of(ContinuousClock.now - start) * 1000)
      guard timeline.position == target else { throw BenchmarkError(":goto \(target) missed") }
    }
    _ = await session.handle(":goto 10000")
    guard try feature.state() == final else {
      throw BenchmarkError(":goto 10000 did not give the state the session ended with")
    }
    jumps.sort()

    let recorded = timeline.actions.map(\.action)
    let uuids = timeline.actions.flatMap(\.draws).map { $0.value.stringValue ?? "" }
    var replays: [Double] = [], lives: [Double] = []
    for _ in 0..<3 {
      let start = ContinuousClock.now
      _ = await session.handle(":replay")
      replays.append(Seconds.of(ContinuousClock.now - start) * 1000)
      guard try feature.state() == final else {
        throw BenchmarkError(":replay did not give the state the session ended with")
      }
      lives.append(try await liveMilliseconds(file: file, actions: recorded, uuids: uuids))
    }
    let ratios = zip(replays, lives).map { $0 / $1 }.sorted()
    return [
      Figure(name: "repl.goto10k_ms", value: jumps[94], unit: "ms"),
      Figure(name: "repl.goto10k_max_ms", value: jumps[99], unit: "ms"),
      Figure(name: "replay.todos10k_ms", value: replays.sorted()[1], unit: "ms"),
      Figure(name: "replay.todos10k_live_ms", value: lives.sorted()[1], unit: "ms"),
      Figure(name: "replay.todos10k_ratio_vs_live", value: ratios[1], unit: "x"),
    ]
  }

  /// The same actions sent live to a store over a fresh copy of the feature, its `env.uuid()`
  /// answering the recorded ids in order and its clock stopped (as the REPL's was).
  static func liveMilliseconds(
    file: URL, actions: [LuaValue], uuids: [String]
  ) async throws
    -> Double
  {
    let feature = try LuaFeature(contentsOf: file)
    let next = LockedIndex()
    var dependencies = DependencyValues.live
    dependencies.clock = ManualClock()
    dependencies.uuid = UUIDGenerator { UUID(uuidString: uuids[next.take()])! }
    let store = Store(
      initialState: LuaFeatureHandle(feature: feature),
      reducer: LuaFeatureReducer<LuaFeatureHandle>(feature: feature, dependencies: dependencies))
    let milliseconds = await store.withIsolation { store in
      let start = ContinuousClock.now
      for action in actions { store.send(action) }
      return Seconds.of(ContinuousClock.now - start) * 1000
    }
    await store.cancelAllEffects()
    guard try feature.state().todos.tableValue?.count == 1_000 else {
      throw BenchmarkError("the live store did not make 1,000 todos")
    }
    return milliseconds
  }
}

final class LockedIndex: @unchecked Sendable {
  private let lock = NSLock()
  private var value = 0
  func take() -> Int {
    lock.withLock {
      defer { value += 1 }
      return value
    }
  }
}
