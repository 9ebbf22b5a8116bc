import Foundation
import TestSupport
import Testing

/// Attacks on `composable run`'s ending on a signal: the last line's write to standard error.
@Suite struct SignalAttack3Tests {
  /// `composable run notes.lua 2>&1 | stuck-reader`: output and errors share one pipe no one
  /// reads. It fills, an action stays stuck writing; SIGTERM: the gate is given up after 2 s,
  /// the state saved, and then the last line is written to standard error with a blocking
  /// `write(2)` into the same full pipe: the signal's thread blocks for ever, `_exit` is never
  /// reached, and the run never ends (SIGKILL needed). A kill must end the run within ~2 s
  /// whatever standard error is (the line may be lost, as errors to a closed one are).
  /// Repro: `yes inc | head -3000 | composable run n.lua --data d 2>&1 | sleep 1000`, then
  /// `kill -TERM` the run: it stays.
  @Test func aKillEndsARunWhoseOutputAndErrorsShareAFullPipe() throws {
    let (directory, feature, saved) = try SignalAttack2Tests.feature()
    defer { try? FileManager.default.removeItem(at: directory) }
    let process = try SignalAttack2Tests.runProcess(feature, in: directory)
    signal(SIGPIPE, SIG_IGN)  // lines are still written to a run that ended
    let stdin = Pipe(), shared = Pipe()
    process.standardInput = stdin
    process.standardOutput = shared
    process.standardError = shared
    try process.run()
    let pid = process.processIdentifier
    defer { kill(pid, SIGKILL) }
    SignalAttack2Tests.writeManyActions(to: stdin)
    sleep(3)  // the shared pipe (64 KiB) is full: an action is stuck writing
    #expect(process.isRunning)
    kill(pid, SIGTERM)
    let ended = SignalAttack2Tests.ends(process, within: 20)  // two 2 s gate waits, loaded
    #expect(ended, "SIGTERM did not end a run whose standard error is a full pipe")
    if ended {
      #expect(process.terminationStatus == 128 + SIGTERM)
    } else {
      kill(pid, SIGKILL)
      process.waitUntilExit()
    }
    #expect(FileManager.default.fileExists(atPath: saved.path))
  }
}
