import Composable
import ComposableHost
import ComposableLua
import Foundation
import LuaKit

/// The REPL's two promises in time: a save is answered by the new code quickly, and the REPL
/// opens quickly.
enum ReplBenchmarks {
  /// `reload.swap_p95_ms`: from a save of the todos feature (holding 10,000 todos) to the new
  /// code answering an action, through inotify and the REPL session, p95 over 100 saves.
  /// `repl.start_ms`: from spawning `composable repl counter.lua` to its greeting's last line,
  /// where it starts reading (piped, it prints no prompt), median of 11.
  static func run() async throws -> [Figure] {
    let directory = try BenchmarkFiles.makeScratchDirectory("reload")
    defer { try? FileManager.default.removeItem(at: directory) }
    let examples = BenchmarkFiles.examples
    let todos = try String(
      contentsOf: examples.appendingPathComponent("todos/todos.lua"), encoding: .utf8)
    try FileManager.default.copyItem(
      at: examples.appendingPathComponent("todos/todo.lua"),
      to: directory.appendingPathComponent("todo.lua"))
    let file = directory.appendingPathComponent("todos.lua")
    /// The feature whose `version` action sets `state.version = version`.
    func source(_ version: Int) -> String {
      todos.replacingOccurrences(
        of: "local function list(state, action, env)\n  local t = action.type\n",
        with: """
          local function list(state, action, env)
            local t = action.type
            if t == "version" then state.version = \(version) return end

          """)
    }
    try source(0).write(to: file, atomically: true, encoding: .utf8)
    let state: LuaValue = [
      "filter": "all",
      "todos": .table(
        LuaTable(
          array: (0..<10_000).map {
            [
              "id": .string(LuaString("id-\($0)")), "title": .string(LuaString("todo \($0)")),
              "done": false,
            ]
          })),
    ]
    let feature = try LuaFeature(contentsOf: file, state: state)
    let reloads = ReloadCount()
    let session = try ReplSession(
      feature: feature, file: file, env: [:], dependencies: .live,
      write: { line in if line.hasPrefix("reloaded ") { reloads.add() } })
    let reload = try HotReload(feature: feature, file: file) { _ in await session.reload() }
    defer { reload.stop() }
    var samples: [Double] = []
    for version in 1...100 {
      let start = ContinuousClock.now
      try source(version).write(to: file, atomically: version % 2 == 0, encoding: .utf8)
      // As a person would: once the reload is in, an action, which the new code answers.
      while reloads.count < version {
        if ContinuousClock.now - start > .seconds(5) {
          throw BenchmarkError("save \(version) was not reloaded within 5 s")
        }
        try await Task.sleep(for: .microseconds(200))
      }
      _ = await session.handle("version")
      guard try feature.evaluate("state.version").first == .integer(version) else {
        throw BenchmarkError("save \(version) was reloaded but its code did not answer")
      }
      samples.append(Seconds.of(ContinuousClock.now - start) * 1000)
    }
    samples.sort()
    return [
      Figure(name: "reload.swap_p95_ms", value: samples[94], unit: "ms"),
      Figure(name: "reload.swap_median_ms", value: samples[49], unit: "ms"),
      Figure(name: "repl.start_ms", value: try startMilliseconds(examples), unit: "ms"),
    ]
  }

  /// Median of 11: spawn `composable repl counter.lua` and read until it starts reading.
  static func startMilliseconds(_ examples: URL) throws -> Double {
    let composable = try BenchmarkFiles.composable()
    let counter = examples.appendingPathComponent("counter/counter.lua").path
    let data = FileManager.default.temporaryDirectory.appendingPathComponent("repl-start").path
    var samples: [Double] = []
    for _ in 0..<11 {
      let start = DispatchTime.now().uptimeNanoseconds
      let child = try ChildProcess.spawn(
        [composable.path, "repl", counter, "--data", data], readingOutput: true)
      // Piped, the REPL prints no prompt: its greeting's last line is where it starts reading.
      var seen = child.read(through: "Type an action")
      if seen.hasSuffix("Type an action") { seen += child.read(through: "\n") }
      samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
      _ = child.finish()  // end of input: the REPL quits
      guard seen.hasSuffix("\n"), seen.contains("Type an action") else {
        throw BenchmarkError("no greeting from composable repl: \(seen)")
      }
    }
    return samples.sorted()[5]
  }
}

/// How many reloads the session reported.
final class ReloadCount: @unchecked Sendable {
  private let lock = NSLock()
  private var value = 0
  var count: Int { lock.withLock { value } }
  func add() { lock.withLock { value += 1 } }
}
