import Foundation

/// `start.run_ms`: `composable run examples/counter/counter.lua` with one empty line of input
/// (`echo | composable run ...`), the whole process, against `lua5.4 -e ''`
/// (`start.lua_ms`), spawned in alternation; `start.run_ratio_vs_lua` is the median of the
/// rounds' ratios.
enum StartupBenchmarks {
  static func run() throws -> [Figure] {
    let composable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
      .appendingPathComponent("composable").path
    guard FileManager.default.isExecutableFile(atPath: composable) else {
      throw BenchmarkError("build the composable product in release first (scripts/bench does)")
    }
    let counter = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("examples/counter/counter.lua").path
    let data = FileManager.default.temporaryDirectory.appendingPathComponent("start-bench").path
    let run = [composable, "run", counter, "--data", data, "--wait", "0"]
    let lua = ["/usr/bin/lua5.4", "-e", ""]
    _ = try milliseconds(run)  // warm the page cache for both
    _ = try milliseconds(lua)
    var ours: [Double] = [], plain: [Double] = []
    for _ in 0..<21 {
      ours.append(try milliseconds(run))
      plain.append(try milliseconds(lua))
    }
    let ratios = zip(ours, plain).map { $0 / $1 }.sorted()
    return [
      Figure(name: "start.run_ms", value: ours.sorted()[10], unit: "ms"),
      Figure(name: "start.lua_ms", value: plain.sorted()[10], unit: "ms"),
      Figure(name: "start.run_ratio_vs_lua", value: ratios[10], unit: "x"),
    ]
  }

  /// Spawns `arguments` with one empty line on standard input and output to /dev/null, and
  /// times it to its exit.
  static func milliseconds(_ arguments: [String]) throws -> Double {
    var input: [Int32] = [0, 0]
    guard pipe(&input) == 0 else { throw BenchmarkError("pipe") }
    // The line goes in before the child starts: one that never reads it (lua5.4 -e '') must not
    // make the write fail, or kill this process with SIGPIPE.
    var newline: UInt8 = 10
    _ = write(input[1], &newline, 1)
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_adddup2(&actions, input[0], 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addclose(&actions, input[0])
    posix_spawn_file_actions_addclose(&actions, input[1])
    let argv = arguments.map { strdup($0) } + [nil]
    let start = DispatchTime.now().uptimeNanoseconds
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, arguments[0], &actions, nil, argv, environ)
    posix_spawn_file_actions_destroy(&actions)
    argv.forEach { free($0) }
    close(input[0])
    close(input[1])
    guard spawned == 0 else { throw BenchmarkError("\(arguments[0]) did not start") }
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
    guard status == 0 else { throw BenchmarkError("\(arguments.joined(separator: " ")) failed") }
    return elapsed
  }
}
