import Composable
import ComposableLua
import Foundation
import LuaKit

/// A million actions of the todos example through the Store, live: adds, toggles (each one
/// restarting the debounced sort, a task started and cancelled), edits and deletes, with the
/// list held near 100 todos and saves going to an in-memory file client. What is measured is
/// what a leak would show: the growth of the process's peak RSS after a warm-up.
enum SoakBenchmarks {
  /// `SOAK_ACTIONS=3000000` for a longer look (the figure's name stays the 1M one).
  static let actions =
    ProcessInfo.processInfo.environment["SOAK_ACTIONS"].flatMap { Int($0) }
    ?? 1_000_000
  static let warmUp = 100_000
  static let listSize = 100

  static func run() async throws -> [Figure] {
    let feature = try LuaFeature(contentsOf: URL(fileURLWithPath: "examples/todos/todos.lua"))
    let store = Store(
      initialState: LuaFeatureHandle(feature: feature),
      dependencies: {
        $0.uuid = .incrementing
        $0.files = .inMemory()
      },
      reducer: { LuaFeatureReducer<LuaFeatureHandle>(feature: feature, dependencies: $0) })
    // The peak so far is the other benchmarks' (a state of 100,000 todos): start it afresh, or
    // it would hide any growth here.
    resetPeakResident()
    var driver = Driver()
    try await driver.send(warmUp, to: store)
    let warm = peakResidentBytes()
    let start = DispatchTime.now().uptimeNanoseconds
    try await driver.send(actions, to: store)
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start)
    let peak = peakResidentBytes()
    let megabyte = Double(1 << 20)
    return [
      Figure(name: "soak.todos1m.rss_growth_mb", value: Double(peak - warm) / megabyte, unit: "MB"),
      Figure(name: "soak.todos1m.peak_rss_mb", value: Double(peak) / megabyte, unit: "MB"),
      Figure(name: "soak.todos1m.action_ns", value: elapsed / Double(actions), unit: "ns"),
    ]
  }

  /// The actions, in a fixed rotation of ten: an add, a delete of the oldest once the list is
  /// full, six toggles and two edits of todos picked round the list.
  struct Driver {
    var added = 0
    var live: [String] = []  // ids, oldest first
    var step = 0

    mutating func next() -> LuaValue {
      defer { step += 1 }
      switch step % 10 {
      case 0:
        added += 1
        live.append(String(format: "00000000-0000-0000-0000-%012llX", UInt64(added - 1)))
        return ["type": "add", "title": .string(LuaString("todo \(added)"))]
      case 1 where live.count > SoakBenchmarks.listSize:
        return ["type": "delete", "id": .string(LuaString(live.removeFirst()))]
      case 8, 9:
        let id = live[step % live.count]
        return [
          "type": "todo", "id": .string(LuaString(id)),
          "action": ["type": "edited", "title": .string(LuaString("edit \(step)"))],
        ]
      default:
        let id = live[step % live.count]
        return ["type": "todo", "id": .string(LuaString(id)), "action": "toggled"]
      }
    }

    /// Sends `count` actions, a thousand per turn on the store, so that effects get to run.
    mutating func send(_ count: Int, to store: Store<LuaFeatureHandle, LuaValue>) async throws {
      var left = count
      while left > 0 {
        let batch = (0..<min(1000, left)).map { _ in next() }
        await store.withIsolation { store in
          for action in batch { store.send(action) }
        }
        await Task.yield()
        left -= batch.count
      }
    }
  }

  /// Sets the peak resident set (VmHWM) back to what is resident now (Linux: `5` into
  /// `/proc/self/clear_refs`).
  static func resetPeakResident() {
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
  }

  /// The process's peak resident set (VmHWM), in bytes.
  static func peakResidentBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
      return 0
    }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
      let kilobytes = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
      return kilobytes * 1024
    }
    return 0
  }
}
