import ComposableLua
import Foundation
import LuaKit

/// What a state costs to read and write whole: a snapshot of 1,000 todos, the push of one back
/// (a restore, a step of time travel), the comparison of two snapshots read separately, and its
/// saved file written and read. Medians of 201 runs each, in microseconds; and the size of a
/// `LuaValue`.
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
    // A snapshot pushed back (a restore, a step of time travel), and the same state built in
    // Swift, which is not known to share nothing and is looked over first.
    let read = try feature.state()
    let push = try median { try feature.setState(read) }
    let pushBuilt = try median { try feature.setState(state) }
    let first = try feature.state()
    let second = try feature.state()
    var equal = true
    let compare = median { equal = equal && first == second }
    precondition(equal, "two snapshots of one state differ")
    // The saved file: written, read by the literal-only reader, and for comparison run as a
    // chunk by Lua itself (what the reader replaced) and snapshotted.
    let text = try LuaDataFile.text(of: first)
    let bytes = Array(text.utf8)
    let save = try median { _ = try LuaDataFile.text(of: first) }
    let readFile = try median { _ = try LuaDataFile.read(bytes, chunkName: "todos.saved.lua") }
    let vm = try LuaVM()
    let load = try median { _ = try vm.evaluate(text, chunkName: "todos.saved.lua") }
    return [
      Figure(name: "snapshot.todos1k_us", value: snapshot, unit: "us"),
      Figure(name: "snapshot.todos1k_push_us", value: push, unit: "us"),
      Figure(name: "snapshot.todos1k_push_built_us", value: pushBuilt, unit: "us"),
      Figure(name: "snapshot.todos1k_equal_us", value: compare, unit: "us"),
      Figure(name: "snapshot.todos1k_save_us", value: save, unit: "us"),
      Figure(name: "snapshot.todos1k_read_us", value: readFile, unit: "us"),
      Figure(name: "snapshot.todos1k_lua_load_us", value: load, unit: "us"),
      Figure(name: "snapshot.luavalue_size", value: Double(MemoryLayout<LuaValue>.size), unit: "B"),
      Figure(
        name: "snapshot.luavalue_stride", value: Double(MemoryLayout<LuaValue>.stride), unit: "B"),
    ]
  }
}
