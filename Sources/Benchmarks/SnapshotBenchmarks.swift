import ComposableLua
import Foundation
import LuaKit

/// What a state costs to read and write whole: a snapshot of 1,000 todos, the push of one back
/// (a restore, a step of time travel), and the comparison of two snapshots read separately.
/// Medians of 201 runs each, in microseconds; and the size of a `LuaValue`.
enum SnapshotBenchmarks {
  static func run() throws -> [Figure] {
    let state = LuaFeatureBenchmarks.todosState(count: 1_000)
    let feature = try LuaFeature(
      source: LuaFeatureBenchmarks.todos, file: "todos.lua", state: state)
    func median(_ body: () throws -> Void) rethrows -> Double {
      var samples: [Double] = []
      for _ in 0..<201 {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000)
      }
      return samples.sorted()[100]
    }
    let snapshot = try median { _ = try feature.state() }
    let push = try median { try feature.setState(state) }
    let first = try feature.state()
    let second = try feature.state()
    var equal = true
    let compare = median { equal = equal && first == second }
    precondition(equal, "two snapshots of one state differ")
    return [
      Figure(name: "snapshot.todos1k_us", value: snapshot, unit: "us"),
      Figure(name: "snapshot.todos1k_push_us", value: push, unit: "us"),
      Figure(name: "snapshot.todos1k_equal_us", value: compare, unit: "us"),
      Figure(name: "snapshot.luavalue_size", value: Double(MemoryLayout<LuaValue>.size), unit: "B"),
      Figure(
        name: "snapshot.luavalue_stride", value: Double(MemoryLayout<LuaValue>.stride), unit: "B"),
    ]
  }
}
