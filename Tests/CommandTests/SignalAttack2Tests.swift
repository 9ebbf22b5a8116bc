import Foundation
import TestSupport
import Testing

/// Attacks on `composable run`'s signal gate (SignalSaver, SignalGatedReducer): a kill must end
/// the run within about 2 s whatever an action is doing, and an output whose reader went away
/// stops the run whatever kind of file it is.
@Suite struct SignalAttack2Tests {
  static let notes = """
    local composable = require("composable")
    return {
      persist = composable.persist{ path = "notes.saved.lua", debounce = 1 },
      initial_state = function() return { notes = {} } end,
      reduce = function(state, action)
        if action.type == "add" then table.insert(state.notes, action.text) end
        if action.type == "spin" then
          -- Seconds of work the instruction budget does not see: long strings compared.
          local a = string.rep("x", 4000000) .. "a"
          local b = string.rep("x", 4000000) .. "b"
          local c = 0
          for i = 1, action.n do if a < b then c = c + 1 end end
          state.spun = c
        end
      end,
    }
    """

  static func feature() throws -> (directory: URL, feature: URL, saved: URL) {
    let directory = try makeTemporaryDirectory("signals2")
    let feature = directory.appendingPathComponent("notes.lua")
    try notes.write(to: feature, atomically: true, encoding: .utf8)
    return (directory, feature, directory.appendingPathComponent("data/notes.saved.lua"))
  }

  /// `composable COMMAND FEATURE --data DIRECTORY/data` (`run` unless said), not started: the
  /// caller gives it its pipes.
  static func runProcess(
    _ feature: URL, in directory: URL, command: String = "run"
  ) throws -> Process {
    let process = Process()
    process.executableURL = try builtProduct("composable")
    process.arguments = [
      command, feature.path, "--data", directory.appendingPathComponent("data").path,
    ]
    return process
  }

  /// Starts `process` with a pipe for each of its standard files.
  static func startWithPipes(_ process: Process) throws -> (stdin: Pipe, stdout: Pipe, stderr: Pipe)
  {
    let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    return (stdin, stdout, stderr)
  }

  /// Writes 3,000 `add` actions into `stdin` from another thread: far more than a pipe (64 KiB)
  /// holds once their changes are printed.
  static func writeManyActions(to stdin: Pipe) {
    let lines = (0..<3000).map { #"{ type = "add", text = "n\#($0)" }"# + "\n" }.joined()
    let writer = stdin.fileHandleForWriting
    DispatchQueue.global().async { try? writer.write(contentsOf: Data(lines.utf8)) }
  }

  /// Waits up to `seconds` for `process` to end; whether it did.

  static func ends(_ process: Process, within seconds: Double) -> Bool {
    let deadline = Date(timeIntervalSinceNow: seconds)
    while process.isRunning, Date() < deadline { usleep(20_000) }
    return !process.isRunning
  }

  /// Standard output is a pipe no one reads: it fills, and an action stays stuck writing its
  /// changes, holding the action gate. SIGTERM must end the run within seconds (the gate is
  /// waited for 2 s at most, twice). The signal's thread saves and writes its last line, but `exit(143)`
  /// runs libstdc++'s `ios_base::Init` destructor, which flushes stdout and waits forever on
  /// the stdio lock the stuck writer holds: the run never ends (SIGKILL needed).
  /// Repro: `yes '{ type = "add", text = "n" }' | head -3000 | composable run notes.lua |
  /// (sleep 1000)`, then `kill -TERM` the run.
  @Test func aKillEndsARunStuckWritingIntoAFullPipe() throws {
    let (directory, feature, saved) = try Self.feature()
    defer { try? FileManager.default.removeItem(at: directory) }
    let process = try SignalAttack2Tests.runProcess(feature, in: directory)
    // The run ends while lines are still written to it: a write to its input must fail with
    // EPIPE here, not end the test process on SIGPIPE.
    signal(SIGPIPE, SIG_IGN)
    let (stdin, stdout, stderr) = try Self.startWithPipes(process)
    let pid = process.processIdentifier
    defer { kill(pid, SIGKILL) }
    Self.writeManyActions(to: stdin)
    sleep(3)  // the pipe (64 KiB) is full long before: an action is stuck writing
    #expect(process.isRunning)
    kill(pid, SIGTERM)
    // Two gate waits of 2 s at most (before the save, and after it for the stuck action), with
    // room for a loaded machine: never ending is what fails.
    let ended = Self.ends(process, within: 20)
    #expect(ended, "SIGTERM did not end a run stuck writing into a full pipe")
    if ended {
      #expect(process.terminationStatus == 128 + SIGTERM)
    } else {
      kill(pid, SIGKILL)
      process.waitUntilExit()
    }
    // The save was made before the exit hung.
    #expect(FileManager.default.fileExists(atPath: saved.path))
  }

  /// Standard output is a socket whose reader shut down reading (`shutdown(SHUT_RD)`): each
  /// write fails with EPIPE and the kernel raises SIGPIPE, as for a pipe whose reader went.
  /// The run must stop there (141), the input not read yet not run. `outputIsGone` polls for
  /// POLLERR or POLLHUP, which such a socket does not raise: the SIGPIPE is dropped, the run
  /// reads on and runs every line ("three" is saved), and it ends as a run whose output could
  /// not be written (exit 1), not 141.
  @Test func aSocketWhoseReaderShutDownStopsTheRun() throws {
    let (directory, feature, saved) = try Self.feature()
    defer { try? FileManager.default.removeItem(at: directory) }
    var ends: [Int32] = [0, 0]
    #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
    let process = Process()
    process.executableURL = try builtProduct("composable")
    process.arguments = [
      "run", feature.path, "--wait", "0", "--data", directory.appendingPathComponent("data").path,
    ]
    signal(SIGPIPE, SIG_IGN)  // as above: "three" goes to a run that stopped
    let stdin = Pipe(), stderr = Pipe()
    process.standardInput = stdin
    process.standardOutput = FileHandle(fileDescriptor: ends[1], closeOnDealloc: false)
    process.standardError = stderr
    try process.run()
    close(ends[1])
    let pid = process.processIdentifier
    defer { kill(pid, SIGKILL) }
    func send(_ note: String) {
      try? stdin.fileHandleForWriting.write(
        contentsOf: Data((#"{ type = "add", text = "\#(note)" }"# + "\n").utf8))
    }
    send("one")
    var shown = [UInt8](repeating: 0, count: 65536)
    var text = ""
    while !text.contains("received action") {
      let count = read(ends[0], &shown, shown.count)
      if count <= 0 { break }
      text += String(decoding: shown[..<count], as: UTF8.self)
    }
    shutdown(ends[0], Int32(SHUT_RD))
    send("two")  // its changes cannot be written: SIGPIPE
    // It ends on its own (waited for, not timed: a loaded machine may take a while), before
    // "three" is sent.
    let stoppedOnTwo = Self.ends(process, within: 20)
    #expect(stoppedOnTwo, "the run read on after its output's reader went away")
    send("three")
    try? stdin.fileHandleForWriting.close()
    #expect(Self.ends(process, within: 10))
    close(ends[0])
    #expect(process.terminationStatus == 128 + SIGPIPE)
    let state = (try? String(contentsOf: saved, encoding: .utf8)) ?? ""
    #expect(!state.contains(#""three""#), "the input after the output went was run: \(state)")
  }

  /// SIGTERM while an action runs for ~3 s (long strings compared, unseen by the instruction
  /// budget): the gate is given up after 2 s, and the save then waits for the VM; the run ends
  /// 143 with what the output showed saved. (Held.)
  @Test func aKillDuringALongActionSavesWhatItShowed() throws {
    let (directory, feature, saved) = try Self.feature()
    defer { try? FileManager.default.removeItem(at: directory) }
    let process = try SignalAttack2Tests.runProcess(feature, in: directory)
    let (stdin, stdout, stderr) = try Self.startWithPipes(process)
    let pid = process.processIdentifier
    defer { kill(pid, SIGKILL) }
    try stdin.fileHandleForWriting.write(
      contentsOf: Data(#"{ type = "spin", n = 9000 }"#.utf8 + [10]))
    usleep(1_200_000)
    kill(pid, SIGTERM)
    #expect(Self.ends(process, within: 10))
    #expect(process.terminationStatus == 128 + SIGTERM)
    let shown = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let state = (try? String(contentsOf: saved, encoding: .utf8)) ?? ""
    #expect(shown.contains("+ spun = 9000") == state.contains("spun = 9000"), "\(shown)\n\(state)")
    let errors = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    #expect(
      errors.split(separator: "\n").last
        == "error: stopped by SIGTERM: the state was saved (exit status 143)", "\(errors)")
  }
}
