import Foundation

/// `start.run_ms`: `composable run examples/counter/counter.lua` with one empty line of input
/// (`echo | composable run ...`), the whole process, against `lua5.4 -e ''`
/// (`start.lua_ms`), spawned in alternation; `start.run_ratio_vs_lua` is the median of the
/// rounds' ratios.
///
/// The command timed is a copy of the built one, written start to end as installing it would
/// (`lua5.4` too was installed so). The linker's own output file, the same bytes, starts about
/// 0.4 ms slower: the kernel caches a file written in pieces in smaller pages, so mapping it
/// takes ~40 more page faults. `start.build_output_ratio_vs_lua` times that file, for context.
enum StartupBenchmarks {
  static func run() throws -> [Figure] {
    let built = try BenchmarkFiles.composable()
    let directory = try BenchmarkFiles.makeScratchDirectory("start")
    defer { try? FileManager.default.removeItem(at: directory) }
    let installed = directory.appendingPathComponent("composable")
    try Data(contentsOf: built).write(to: installed)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: installed.path)
    let counter = BenchmarkFiles.examples.appendingPathComponent("counter/counter.lua").path
    let data = directory.appendingPathComponent("data").path
    func run(_ composable: URL) -> [String] {
      [composable.path, "run", counter, "--data", data, "--wait", "0"]
    }
    let lua = ["/usr/bin/lua5.4", "-e", ""]
    for command in [run(installed), run(built), lua] {  // warm the page cache for each
      _ = try ChildProcess.timedRun(command)
    }
    var ours: [Double] = [], inPlace: [Double] = [], plain: [Double] = []
    var inPlacePlain: [Double] = []
    for _ in 0..<21 {
      ours.append(try ChildProcess.timedRun(run(installed)))
      plain.append(try ChildProcess.timedRun(lua))
      inPlace.append(try ChildProcess.timedRun(run(built)))
      inPlacePlain.append(try ChildProcess.timedRun(lua))
    }
    func medianRatio(_ top: [Double], _ bottom: [Double]) -> Double {
      zip(top, bottom).map { $0 / $1 }.sorted()[top.count / 2]
    }
    return [
      Figure(name: "start.run_ms", value: ours.sorted()[10], unit: "ms"),
      Figure(name: "start.lua_ms", value: plain.sorted()[10], unit: "ms"),
      Figure(name: "start.run_ratio_vs_lua", value: medianRatio(ours, plain), unit: "x"),
      Figure(
        name: "start.build_output_ratio_vs_lua", value: medianRatio(inPlace, inPlacePlain),
        unit: "x"),
    ]
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
    let composable = try BenchmarkFiles.composable().path
    let directory = try BenchmarkFiles.makeScratchDirectory("rss")
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
    let child = try ChildProcess.spawn(arguments, readingOutput: true)
    _ = child.read(through: readyAfter)
    let status = (try? String(contentsOfFile: "/proc/\(child.pid)/status", encoding: .utf8)) ?? ""
    _ = child.finish()
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
      let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
    else { throw BenchmarkError("no VmRSS for \(arguments[0])") }
    return kilobytes
  }
}
