import Composable
import ComposableLua
import Foundation
import LuaKit

// `scripts/bench [NAME...]`: runs the groups whose figures start with one of the NAMEs (all
// when none) and prints each figure as `name: value unit`.
let groups = [
  BenchmarkGroup(prefix: "marshal.todos10k", run: MarshalBenchmarks.run),
  BenchmarkGroup(prefix: "json.todos10k", run: JSONBenchmarks.run),
  BenchmarkGroup(prefix: "lua.counter.floor", run: LuaFloorBenchmarks.run),
  BenchmarkGroup(prefix: "store", run: { try runBlocking(StoreBenchmarks.run) }),
  BenchmarkGroup(prefix: "lua.", run: { try runBlocking(LuaFeatureBenchmarks.run) }),
  BenchmarkGroup(prefix: "test.todos", run: LuaTestBenchmarks.run),
  BenchmarkGroup(prefix: "soak.todos1m", run: { try runBlocking(SoakBenchmarks.run) }),
  BenchmarkGroup(prefix: "reload", run: { try runBlocking(ReplBenchmarks.run) }),
  BenchmarkGroup(prefix: "replay", run: { try runBlocking(TimeTravelBenchmarks.run) }),
  BenchmarkGroup(prefix: "start", run: StartupBenchmarks.run),
  BenchmarkGroup(prefix: "memory.todos100k.rss", run: ResidentMemoryBenchmarks.run),
  BenchmarkGroup(prefix: "plain", run: { try runBlocking(CloseToPlainBenchmarks.run) }),
  BenchmarkGroup(prefix: "proxy", run: ProxyBenchmarks.run),
  BenchmarkGroup(prefix: "snapshot", run: SnapshotBenchmarks.run),
  BenchmarkGroup(prefix: "heavy", run: { try runBlocking(HeavyBenchmarks.run) }),
]

// A loop of typed toggles to profile under `perf record` (a diagnostic, not a figure):
// `toggle-loop [TODOS [ACTIONS]]`, 10 todos and 5,000,000 actions by default.
if CommandLine.arguments.dropFirst().first == "toggle-loop" {
  let count = CommandLine.arguments.dropFirst(2).first.flatMap { Int($0) } ?? 10
  let actions = CommandLine.arguments.dropFirst(3).first.flatMap { Int($0) } ?? 5_000_000
  try sendTyped(
    actions,
    to: LuaFeature(
      source: LuaFeatureBenchmarks.todos, file: "todos.lua",
      state: LuaFeatureBenchmarks.todosState(count: count),
      limits: LuaLimits(memory: nil, instructions: 10_000_000))
  ) { CloseToPlainBenchmarks.TodosAction.toggle(id: $0 % count + 1) }
  exit(0)
}
// One heavy workload's steps through the store, to profile (a diagnostic, not a figure):
// `heavy-loop NAME [STEPS] [value]`, 100 steps by default; with `value`, each action is a
// `LuaValue`, as `heavy.NAME.ratio_vs_plain` sends it.
if CommandLine.arguments.dropFirst().first == "heavy-loop" {
  let name = CommandLine.arguments.dropFirst(2).first ?? ""
  let steps = CommandLine.arguments.dropFirst(3).first.flatMap { Int($0) } ?? 100
  guard let workload = HeavyWorkload.all.first(where: { $0.name == name }) else {
    FileHandle.standardError.write(
      Data("heavy-loop: the workloads are \(HeavyWorkload.all.map(\.name))\n".utf8))
    exit(1)
  }
  let feature = try HeavyBenchmarks.feature(workload)
  if CommandLine.arguments.dropFirst(4).first == "value" {
    try runBlocking {
      let store = Store(
        initialState: LuaFeatureHandle(feature: feature),
        reducer: LuaFeatureReducer<LuaFeatureHandle>(feature: feature, dependencies: .live))
      let actions: [LuaValue] = (0..<steps).map { ["type": "step", "i": .integer($0 + 1)] }
      await store.withIsolation { store in
        for action in actions { store.send(action) }
      }
    }
    exit(0)
  }
  try sendTyped(steps, to: feature) { HeavyBenchmarks.HeavyAction.step(i: $0 + 1) }
  exit(0)
}
// The typed counter's loop, to profile the same way: `counter-loop [ACTIONS] [value]`; with
// `value`, the action is a `LuaValue`, as `lua.counter.ratio_vs_plain` sends it.
if CommandLine.arguments.dropFirst().first == "counter-loop" {
  let actions = CommandLine.arguments.dropFirst(2).first.flatMap { Int($0) } ?? 5_000_000
  let feature = try LuaFeature(
    source: LuaFeatureBenchmarks.counter, file: "counter.lua",
    limits: LuaLimits(memory: nil, instructions: 10_000_000))
  if CommandLine.arguments.dropFirst(3).first == "value" {
    try runBlocking {
      let store = Store(
        initialState: LuaFeatureHandle(feature: feature),
        reducer: LuaFeatureReducer<LuaFeatureHandle>(feature: feature, dependencies: .live))
      let increment: LuaValue = ["type": "increment"]
      await store.withIsolation { store in
        for _ in 0..<actions { store.send(increment) }
      }
    }
  } else {
    try sendTyped(actions, to: feature) { _ in LuaFeatureBenchmarks.CounterAction.increment }
  }
  exit(0)
}
// Two counter stores sending at once, as `store.scaling2_ratio` times them, to profile:
// `scaling-loop [ACTIONS]` (each store sends ACTIONS).
if CommandLine.arguments.dropFirst().first == "scaling-loop" {
  let actions = CommandLine.arguments.dropFirst(2).first.flatMap { Int($0) } ?? 5_000_000
  try runBlocking { try await CloseToPlainBenchmarks.sendTogether(actions: actions) }
  exit(0)
}
if CommandLine.arguments.dropFirst().first == "lua-pieces" {  // a diagnostic, not a figure
  try runBlocking(LuaFeatureBenchmarks.pieces)
  exit(0)
}
if CommandLine.arguments.dropFirst().first == "pieces" {  // a diagnostic, not a figure
  try MarshalBenchmarks.pieces()
  exit(0)
}
/// Sends `count` typed actions (`action(index)`) through a store over `feature`: a loop to
/// profile.
func sendTyped<Action: LuaActionConvertible & Codable>(
  _ count: Int, to feature: LuaFeature, _ action: @escaping @Sendable (Int) -> Action
) throws {
  try runBlocking {
    let store = Store(
      initialState: LuaFeatureHandle(feature: feature),
      reducer: LuaFeatureCodableReducer<LuaFeatureHandle, Action>(
        feature: feature, dependencies: .live))
    await store.withIsolation { store in
      for index in 0..<count { store.send(action(index)) }
    }
  }
}

/// Runs async benchmark code from this synchronous entry point.
func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
  let result = LockedResult<T>()
  let done = DispatchSemaphore(value: 0)
  Task {
    do { result.value = .success(try await body()) } catch { result.value = .failure(error) }
    done.signal()
  }
  done.wait()
  return try result.value!.get()
}

final class LockedResult<T: Sendable>: @unchecked Sendable {
  // Written once by the task before it signals, read once after the wait.
  var value: Result<T, any Error>?
}

let filters = Array(CommandLine.arguments.dropFirst())
let selected = groups.filter { group in
  filters.isEmpty || filters.contains { group.prefix.hasPrefix($0) || $0.hasPrefix(group.prefix) }
}
if selected.isEmpty {
  FileHandle.standardError.write(
    Data(
      "bench: no benchmark matches \(filters.joined(separator: " ")); the groups are \(groups.map(\.prefix).joined(separator: ", "))\n"
        .utf8))
  exit(2)
}
for group in selected {
  do {
    for figure in try group.run() { print(figure.line) }
  } catch {
    FileHandle.standardError.write(Data("bench: \(group.prefix) failed: \(error)\n".utf8))
    exit(1)
  }
}
