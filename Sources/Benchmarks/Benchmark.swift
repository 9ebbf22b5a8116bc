import Foundation

/// A figure printed as `name: value unit`, the format every benchmark of the project shares.
struct Figure {
  var name: String
  var value: Double
  var unit: String

  var line: String {
    let text = value >= 100 ? String(format: "%.0f", value) : String(format: "%.2f", value)
    return "\(name): \(text) \(unit)"
  }
}

/// Nanoseconds per iteration of `body`, the median of `rounds` timed rounds after one warm-up.
func nanosecondsPerIteration(
  iterations: Int, rounds: Int = 5, _ body: (Int) throws -> Void
) rethrows -> Double {
  try body(max(1, iterations / 10))  // warm-up: caches, allocator, JIT-free but still
  var samples: [Double] = []
  for _ in 0..<rounds {
    let start = DispatchTime.now().uptimeNanoseconds
    try body(iterations)
    let end = DispatchTime.now().uptimeNanoseconds
    samples.append(Double(end - start) / Double(iterations))
  }
  return samples.sorted()[samples.count / 2]
}

/// Nanoseconds per iteration of each body, timed in alternating rounds (a, b, a, b, ...) so
/// that a noisy neighbour slows both sides alike; the median round of each. Each round starts
/// with one untimed iteration, for both sides alike, so that neither pays for the heap the
/// other just left behind.
func interleavedNanoseconds(
  iterations: Int, rounds: Int = 9, _ first: (Int) throws -> Void, _ second: (Int) throws -> Void
) rethrows -> (first: Double, second: Double) {
  try first(1)
  try second(1)
  func time(_ body: (Int) throws -> Void) rethrows -> Double {
    try body(1)
    let start = DispatchTime.now().uptimeNanoseconds
    try body(iterations)
    return Double(DispatchTime.now().uptimeNanoseconds - start) / Double(iterations)
  }
  var samples: ([Double], [Double]) = ([], [])
  for _ in 0..<rounds {
    samples.0.append(try time(first))
    samples.1.append(try time(second))
  }
  return (samples.0.sorted()[rounds / 2], samples.1.sorted()[rounds / 2])
}

/// A group of figures that run together, so ratios compare numbers taken side by side.
struct BenchmarkGroup {
  var prefix: String
  var run: () throws -> [Figure]
}

/// A process a benchmark spawns: its standard input a pipe (`input`, the write end), its
/// standard output a pipe (`output`, the read end) or /dev/null, its standard error /dev/null.
struct ChildProcess {
  let pid: pid_t
  let input: Int32
  /// -1 when the output goes to /dev/null.
  let output: Int32

  /// Starts `arguments` with `firstInput` already in its input (so that a process that never
  /// reads it cannot make the write fail, or kill this one with SIGPIPE).
  static func spawn(
    _ arguments: [String], readingOutput: Bool, firstInput: [UInt8] = []
  ) throws -> ChildProcess {
    var input: [Int32] = [0, 0], output: [Int32] = [-1, -1]
    guard pipe(&input) == 0, !readingOutput || pipe(&output) == 0 else {
      throw BenchmarkError("pipe")
    }
    if !firstInput.isEmpty { _ = write(input[1], firstInput, firstInput.count) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_adddup2(&actions, input[0], 0)
    if readingOutput {
      posix_spawn_file_actions_adddup2(&actions, output[1], 1)
    } else {
      posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    }
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    // The child keeps only its own ends: with ours open in it, its input would never end.
    for end in input + output where end >= 0 { posix_spawn_file_actions_addclose(&actions, end) }
    let argv = arguments.map { strdup($0) } + [nil]
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, arguments[0], &actions, nil, argv, environ)
    posix_spawn_file_actions_destroy(&actions)
    argv.forEach { free($0) }
    close(input[0])
    if readingOutput { close(output[1]) }
    guard spawned == 0 else {
      close(input[1])
      if readingOutput { close(output[0]) }
      throw BenchmarkError("\(arguments[0]) did not start")
    }
    return ChildProcess(pid: pid, input: input[1], output: output[0])
  }

  /// Milliseconds for a whole run of `arguments`, its input one empty line, its output
  /// discarded; an error when it fails. (posix_spawn, not Foundation's Process, which adds
  /// tens of milliseconds of its own and would blur a comparison.)
  static func timedRun(_ arguments: [String]) throws -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    let status = try spawn(arguments, readingOutput: false, firstInput: [10]).finish()
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
    guard status == 0 else {
      throw BenchmarkError("\(arguments.joined(separator: " ")) failed (status \(status))")
    }
    return elapsed
  }

  /// What the process wrote, up to and with the first `suffix` (or all of it, if it ends
  /// first).
  func read(through suffix: String) -> String {
    var seen = ""
    var byte: UInt8 = 0
    while !seen.hasSuffix(suffix), Glibc.read(output, &byte, 1) == 1 {
      seen.append(Character(UnicodeScalar(byte)))
    }
    return seen
  }

  /// Ends its input, takes what it still writes (so that it never waits on a full pipe), and
  /// waits for it: its exit status.
  func finish() -> Int32 {
    close(input)
    if output >= 0 {
      var buffer = [UInt8](repeating: 0, count: 4096)
      while Glibc.read(output, &buffer, buffer.count) > 0 {}
      close(output)
    }
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    return status
  }
}

/// The files benchmarks work with: the built command, the examples, a scratch directory.
enum BenchmarkFiles {
  /// The release `composable` beside this binary (scripts/bench builds both).
  static func composable() throws -> URL {
    let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
      .appendingPathComponent("composable")
    guard FileManager.default.isExecutableFile(atPath: executable.path) else {
      throw BenchmarkError("build the composable product in release first (scripts/bench does)")
    }
    return executable
  }

  /// The repository's `examples` directory.
  static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("examples")

  /// A new, empty directory for one benchmark's files, named after it; the caller removes it.
  static func makeScratchDirectory(_ name: String) throws -> URL {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("\(name)-bench-\(UUID())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
  }
}
