import Foundation
import TestSupport
import Testing

/// A kill during a REPL action that outlasts the signal's 2 s wait for the action gate: the REPL
/// ends 143, says its last line, and what it showed of the action is what was saved. (With the
/// gate taken out of the REPL it still held in three runs: the test pins the promise, not the
/// gate.)
@Suite struct ReplSignalGateTests {
  @Test func aKillDuringAnActionSavesWhatTheReplShowed() throws {
    let (directory, feature, saved) = try SignalAttack2Tests.feature()
    defer { try? FileManager.default.removeItem(at: directory) }
    let process = try SignalAttack2Tests.runProcess(feature, in: directory, command: "repl")
    let (stdin, stdout, stderr) = try SignalAttack2Tests.startWithPipes(process)
    let pid = process.processIdentifier
    defer { kill(pid, SIGKILL) }
    // About 3 s of work (long strings compared), past the gate's 2 s wait.
    try stdin.fileHandleForWriting.write(
      contentsOf: Data(#"{ type = "spin", n = 9000 }"#.utf8 + [10]))
    usleep(1_200_000)
    kill(pid, SIGTERM)
    #expect(SignalAttack2Tests.ends(process, within: 10))
    #expect(process.terminationStatus == 128 + SIGTERM)
    let shown = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let state = (try? String(contentsOf: saved, encoding: .utf8)) ?? ""
    // Shown if and only if saved (a kill before the action began, on a loaded host, has
    // neither).
    #expect(
      shown.contains("+ spun = 9000") == state.contains("spun = 9000"),
      "saved but not shown, or shown but not saved:\n\(shown)\n\(state)")
    let errors = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    #expect(
      errors.split(separator: "\n").last
        == "error: stopped by SIGTERM: the state was saved (exit status 143)", "\(errors)")
  }
}
