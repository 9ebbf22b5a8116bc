import Composable
import ComposableLua
import Foundation
import LuaKit

/// Per action: the Lua counter through the Store, the Swift counter through the Store, and a
/// toggle on a todos state of 10 and of 100,000 items (the cost must not grow with the state).
enum LuaFeatureBenchmarks {
  static let counter = """
    return {
      initial_state = function() return { count = 0 } end,
      reduce = function(state, action)
        if action.type == "increment" then
          state.count = state.count + 1
        elseif action.type == "decrement" then
          state.count = state.count - 1
        end
      end,
    }
    """

  /// Todos keyed by id for O(1) lookup, as `for_each` keeps them.
  static let todos = """
    return {
      reduce = function(state, action)
        if action.type == "toggle" then
          local todo = state.todos[action.id]
          todo.done = not todo.done
        end
      end,
    }
    """

  static func todosState(count: Int) -> LuaValue {
    var todos = LuaTable()
    for id in 1...count {
      todos[.integer(id)] = [
        "id": .integer(id), "title": .string(LuaString("Todo \(id)")), "done": false,
      ]
    }
    return ["todos": .table(todos)]
  }

  static let iterations = 200_000

  /// The counter's action as a typed action: `{ type = "increment" }` pushed with an interned
  /// name, no `LuaValue` per send.
  enum CounterAction: Codable, Sendable, LuaActionConvertible {
    case increment

    static let incrementName: LuaName = "increment"
    var luaType: LuaName { Self.incrementName }
  }

  static func run() async throws -> [Figure] {
    let unlimited = LuaLimits(memory: nil, instructions: 10_000_000)
    let counterFeature = try LuaFeature(source: counter, file: "counter.lua", limits: unlimited)
    let luaStore = Store(
      initialState: LuaFeatureHandle(feature: counterFeature),
      reducer: LuaFeatureReducer<LuaFeatureHandle>(feature: counterFeature, dependencies: .live))
    let typedFeature = try LuaFeature(source: counter, file: "counter.lua", limits: unlimited)
    let typedStore = Store(
      initialState: LuaFeatureHandle(feature: typedFeature),
      reducer: LuaFeatureCodableReducer<LuaFeatureHandle, CounterAction>(
        feature: typedFeature, dependencies: .live))
    let swiftStore = Store(initialState: 0, reducer: StoreBenchmarks.Counter())
    let small = try LuaFeature(
      source: todos, file: "todos.lua", state: todosState(count: 10), limits: unlimited)
    let large = try LuaFeature(
      source: todos, file: "todos.lua", state: todosState(count: 100_000), limits: unlimited)
    let smallStore = Store(
      initialState: LuaFeatureHandle(feature: small),
      reducer: LuaFeatureReducer<LuaFeatureHandle>(feature: small, dependencies: .live))
    let largeStore = Store(
      initialState: LuaFeatureHandle(feature: large),
      reducer: LuaFeatureReducer<LuaFeatureHandle>(feature: large, dependencies: .live))

    let increment: LuaValue = ["type": "increment"]
    var lua: [Double] = [], swift: [Double] = [], toggle10: [Double] = [], toggle100k: [Double] = []
    var floor: [Double] = [], typed: [Double] = []
    for _ in 0..<7 {
      floor.append(try LuaFloorBenchmarks.nanosecondsPerCall(iterations: iterations))
      typed.append(
        await typedStore.withIsolation { store in
          StoreBenchmarks.time(iterations: iterations) {
            for _ in 0..<iterations { store.send(.increment) }
          }
        })
      lua.append(
        await luaStore.withIsolation { store in
          StoreBenchmarks.time(iterations: iterations) {
            for _ in 0..<iterations { store.send(increment) }
          }
        })
      swift.append(
        await swiftStore.withIsolation { store in
          StoreBenchmarks.time(iterations: iterations) {
            for _ in 0..<iterations { store.send(.increment) }
          }
        })
      toggle10.append(
        await smallStore.withIsolation { store in
          StoreBenchmarks.time(iterations: iterations) {
            for index in 0..<iterations {
              store.send(["type": "toggle", "id": .integer(index % 10 + 1)])
            }
          }
        })
      toggle100k.append(
        await largeStore.withIsolation { store in
          StoreBenchmarks.time(iterations: iterations) {
            for index in 0..<iterations {
              store.send(["type": "toggle", "id": .integer(index % 100_000 + 1)])
            }
          }
        })
    }
    let count = try counterFeature.state().count.intValue ?? 0
    precondition(count >= 5 * iterations, "the Lua counter did not count")
    // Each ratio is the median of the rounds' ratios: the two sides of a round ran within a
    // second of each other, while this host's speed swings between rounds.
    func ratios(_ top: [Double], _ bottom: [Double]) -> Double {
      StoreBenchmarks.median(zip(top, bottom).map { $0 / $1 })
    }
    return [
      Figure(name: "lua.counter.store_ns", value: StoreBenchmarks.median(lua), unit: "ns"),
      Figure(name: "lua.counter.ratio_vs_floor", value: ratios(lua, floor), unit: "x"),
      // The floor is the counter in plain mutable Lua, called the same way: issue 17's name.
      Figure(name: "lua.counter.ratio_vs_plain", value: ratios(lua, floor), unit: "x"),
      Figure(name: "lua.counter.typed_ns", value: StoreBenchmarks.median(typed), unit: "ns"),
      Figure(name: "lua.counter.typed_ratio_vs_plain", value: ratios(typed, floor), unit: "x"),
      Figure(name: "swift.counter.store_ns", value: StoreBenchmarks.median(swift), unit: "ns"),
      Figure(name: "lua.todos.toggle10_ns", value: StoreBenchmarks.median(toggle10), unit: "ns"),
      Figure(
        name: "lua.todos.toggle100k_ns", value: StoreBenchmarks.median(toggle100k), unit: "ns"),
      Figure(name: "lua.todos.ratio_100k_vs_10", value: ratios(toggle100k, toggle10), unit: "x"),
    ]
  }
}

extension LuaFeatureBenchmarks {
  /// Each layer of a Lua send timed alone, beside the floor, to see where the time goes:
  /// `.build/release/Benchmarks lua-pieces`; `PIECES=<prefix>` times only the matching ones
  /// (for perf).
  static func pieces() async throws {
    let only = ProcessInfo.processInfo.environment["PIECES"]
    if only == "floor" {  // the floor alone, for callgrind
      print("floor: \(Int(try LuaFloorBenchmarks.nanosecondsPerCall(iterations: 100_000))) ns")
      return
    }
    let budget = ProcessInfo.processInfo.environment["BUDGET"].flatMap { Int($0) } ?? 10_000_000
    let limits = LuaLimits(memory: nil, instructions: budget == 0 ? nil : budget)
    let feature = try LuaFeature(source: counter, file: "counter.lua", limits: limits)
    let increment: LuaValue = ["type": "increment"]
    let vm = try LuaVM(limits: limits)
    let noop = try vm.evaluate("return function(action) return nil end")[0]
    guard case let .function(function) = noop else { return }
    try showPiece(only, "vm.call(noop, with: action)") {
      _ = try vm.call(function, with: increment)
    }
    try showPiece(only, "LuaFeature.step") {
      try feature.step(increment)
    }
    for (name, body) in [
      ("empty", ""), ("read", "local c = state.count"), ("write", "state.count = 1"),
      ("action", "local t = action.type"),
    ] {
      let variant = try LuaFeature(
        source: "return { initial_state = function() return { count = 0 } end, "
          + "reduce = function(state, action) \(body) end }",
        file: "variant.lua", limits: limits)
      try showPiece(only, "LuaFeature.step(\(name))") {
        try variant.step(increment)
      }
    }
    let reducer = LuaFeatureReducer<LuaFeatureHandle>(feature: feature, dependencies: .live)
    var handle = LuaFeatureHandle(feature: feature)
    try showPiece(only, "LuaFeatureReducer.reduce") {
      _ = reducer.reduce(into: &handle, action: increment)
    }
    for count in [10, 100_000] where only == nil || "toggle\(count)".hasPrefix(only!) {
      let todos = try LuaFeature(
        source: Self.todos, file: "todos.lua", state: todosState(count: count), limits: limits)
      var index = 0
      try showPiece(only, "toggle\(count)") {
        index += 1
        try todos.step(["type": "toggle", "id": .integer(index % count + 1)])
      }
    }
    let store = Store(initialState: handle, reducer: reducer)
    if only == nil || "Store.send".hasPrefix(only!) {
      try await store.withIsolation { store in
        try showPiece(only, "Store.send") { store.send(increment) }
      }
    }
    let typedStore = Store(
      initialState: handle,
      reducer: LuaFeatureCodableReducer<LuaFeatureHandle, CounterAction>(
        feature: feature, dependencies: .live))
    if only == nil || "typed Store.send".hasPrefix(only!) {
      try await typedStore.withIsolation { store in
        try showPiece(only, "typed Store.send") { store.send(.increment) }
      }
    }
  }

  /// Times a piece in 7 rounds, each beside a run of the floor, and prints the medians of its
  /// time and of its ratio to the floor (this host's speed swings between rounds).
  private static func showPiece(
    _ only: String?, _ name: String, _ body: () throws -> Void
  ) throws {
    if let only, !name.hasPrefix(only) { return }
    // `ROUNDS=1 NOFLOOR=1` for callgrind, which counts instructions where time is too noisy.
    let environment = ProcessInfo.processInfo.environment
    let rounds = environment["ROUNDS"].flatMap { Int($0) } ?? 7
    let withFloor = environment["NOFLOOR"] == nil
    let n = 100_000
    var samples: [Double] = [], ratios: [Double] = []
    for _ in 0..<rounds {
      let floor = withFloor ? try LuaFloorBenchmarks.nanosecondsPerCall(iterations: n) : .nan
      let start = DispatchTime.now().uptimeNanoseconds
      for _ in 0..<n { try body() }
      samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / Double(n))
      ratios.append(samples.last! / floor)
    }
    let ratio = String(format: "%.2f", StoreBenchmarks.median(ratios))
    print("\(name): \(Int(StoreBenchmarks.median(samples))) ns, \(ratio)x the floor")
  }
}
