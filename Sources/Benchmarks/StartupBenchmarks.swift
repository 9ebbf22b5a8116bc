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

/// `memory.todos100k.rss_ratio_vs_plain`: the resident memory a process holds once
/// `initial_state()` has made 100,000 todos, above the same process with an empty state:
/// `composable run` against `lua5.4` running the same loop, each read from /proc while the
/// process waits for input.
enum ResidentMemoryBenchmarks {
  static let feature = """
    return {
      initial_state = function()
        local todos = {}
        for id = 1, COUNT do todos[id] = { id = id, title = "Todo " .. id, done = false } end
        return { todos = todos }
      end,
      reduce = function(state, action) end,
    }
    """

  static func run() throws -> [Figure] {
    let composable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
      .appendingPathComponent("composable").path
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("rss-bench-\(UUID())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    var files: [Int: String] = [:]
    for count in [0, 100_000] {
      let file = directory.appendingPathComponent("todos\(count).lua")
      try feature.replacingOccurrences(of: "COUNT", with: String(count))
        .write(to: file, atomically: true, encoding: .utf8)
      files[count] = file.path
    }
    let data = directory.appendingPathComponent("data").path
    func ours(_ count: Int) throws -> Double {
      try residentKilobytes([composable, "run", files[count]!, "--data", data], readyAfter: "\n")
    }
    func plain(_ count: Int) throws -> Double {
      let script = """
        local todos = {}
        for id = 1, \(count) do todos[id] = { id = id, title = "Todo " .. id, done = false } end
        local state = { todos = todos }
        io.write("ready\\n") io.flush() io.read()
        """
      return try residentKilobytes(["/usr/bin/lua5.4", "-e", script], readyAfter: "ready\n")
    }
    var ourGrowth: [Double] = [], plainGrowth: [Double] = []
    for _ in 0..<3 {
      ourGrowth.append(try ours(100_000) - ours(0))
      plainGrowth.append(try plain(100_000) - plain(0))
    }
    let ourMB = ourGrowth.sorted()[1] / 1024, plainMB = plainGrowth.sorted()[1] / 1024
    return [
      Figure(name: "memory.todos100k.rss_ours_mb", value: ourMB, unit: "MB"),
      Figure(name: "memory.todos100k.rss_plain_mb", value: plainMB, unit: "MB"),
      Figure(name: "memory.todos100k.rss_ratio_vs_plain", value: ourMB / plainMB, unit: "x"),
    ]
  }

  /// Spawns `arguments`, waits until its output has a line ending in `readyAfter` (its first
  /// line, for composable: the state it loaded), reads its VmRSS, then ends its input.
  static func residentKilobytes(_ arguments: [String], readyAfter: String) throws -> Double {
    var input: [Int32] = [0, 0], output: [Int32] = [0, 0]
    guard pipe(&input) == 0, pipe(&output) == 0 else { throw BenchmarkError("pipe") }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_adddup2(&actions, input[0], 0)
    posix_spawn_file_actions_adddup2(&actions, output[1], 1)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    for end in input + output { posix_spawn_file_actions_addclose(&actions, end) }
    let argv = arguments.map { strdup($0) } + [nil]
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, arguments[0], &actions, nil, argv, environ)
    posix_spawn_file_actions_destroy(&actions)
    argv.forEach { free($0) }
    close(input[0])
    close(output[1])
    guard spawned == 0 else { throw BenchmarkError("\(arguments[0]) did not start") }
    var seen = ""
    var byte: UInt8 = 0
    while !seen.hasSuffix(readyAfter), read(output[0], &byte, 1) == 1 {
      seen.append(Character(UnicodeScalar(byte)))
    }
    let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
    close(input[1])
    // Drain what it still writes, so that it is never stopped on a full pipe.
    var buffer = [UInt8](repeating: 0, count: 4096)
    while read(output[0], &buffer, buffer.count) > 0 {}
    close(output[0])
    var exitStatus: Int32 = 0
    waitpid(pid, &exitStatus, 0)
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
      let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
    else { throw BenchmarkError("no VmRSS for \(arguments[0])") }
    return kilobytes
  }
}
