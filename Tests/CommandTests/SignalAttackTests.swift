import Foundation
import TestSupport
import Testing

/// Attacks on `composable run`'s SIGPIPE filter (EndingSignals.c): a SIGPIPE another process
/// sends must end nothing, however its siginfo is dressed; only the kernel's, raised on a write
/// of the run itself once its output is gone, ends the run.
@Suite struct SignalAttackTests {
  /// `rt_sigqueueinfo(pid, SIGPIPE, info)` with `info` naming `pid` itself as the sender, as
  /// any process of the same user may (the kernel only refuses a code of SI_USER or above).
  static func sendForgedSIGPIPE(to pid: Int32) -> Int {
    guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "syscall") else { return -1 }
    typealias Syscall = @convention(c) (Int, Int32, Int32, UnsafeMutableRawPointer) -> Int
    let call = unsafeBitCast(symbol, to: Syscall.self)
    var info = [Int32](repeating: 0, count: 32)  // a siginfo_t: 128 bytes
    info[0] = SIGPIPE  // si_signo
    info[2] = -1  // si_code: SI_QUEUE, what sigqueue(3) sends
    info[4] = pid  // si_pid: the run's own pid, forged
    info[5] = Int32(bitPattern: getuid())  // si_uid
    #if arch(x86_64)
      let number = 129  // SYS_rt_sigqueueinfo
    #else
      let number = 138  // aarch64
    #endif
    return info.withUnsafeMutableBytes { call(number, pid, SIGPIPE, $0.baseAddress!) }
  }

  /// The run's output goes while it is idle; another process then sends a SIGPIPE whose
  /// siginfo names the run as its sender (si_code SI_QUEUE). That is no write of the run's:
  /// it must read on, and save the action still waiting in its input (milk), as it does for a
  /// plain `kill -PIPE` (CommandLineTests.aSIGPIPEFromAnotherProcessEndsNothing). The handler
  /// drops a stray SIGPIPE only when si_pid is another process's, so this one ends the run.
  @Test func aSIGPIPEWithAForgedSenderEndsNothing() throws {
    let (directory, feature, saved) = try CommandLineTests.notesFeature()
    defer { try? FileManager.default.removeItem(at: directory) }
    let run = try CommandLineTests.RunningNotes(feature: feature, in: directory)
    #expect(run.add("bread"))
    try run.stdout.fileHandleForReading.close()
    #expect(Self.sendForgedSIGPIPE(to: run.pid) == 0)
    usleep(300_000)
    #expect(run.process.isRunning, "the run ended on a SIGPIPE another process sent")
    if run.process.isRunning { run.send("milk") }
    run.process.waitUntilExit()
    #expect(run.process.terminationStatus == 128 + SIGPIPE)
    let text = try String(contentsOf: saved, encoding: .utf8)
    #expect(text.contains(#"notes = { "bread", "milk" }"#), "\(text)")
  }

  /// A storm of plain `kill -PIPE`s while the output is gone and the run idle, then SIGTERM:
  /// the run ends on SIGTERM's status (not SIGPIPE's), with what it held saved. (Held.)
  @Test func aStrayStormWhileTheOutputIsGoneThenSIGTERM() throws {
    let (directory, feature, saved) = try CommandLineTests.notesFeature()
    defer { try? FileManager.default.removeItem(at: directory) }
    let run = try CommandLineTests.RunningNotes(feature: feature, in: directory)
    #expect(run.add("rye"))
    try run.stdout.fileHandleForReading.close()
    for _ in 0..<20_000 { kill(run.pid, SIGPIPE) }
    usleep(200_000)
    #expect(run.process.isRunning, "the run ended on SIGPIPEs another process sent")
    kill(run.pid, SIGTERM)
    run.process.waitUntilExit()
    #expect(run.process.terminationReason == .exit)
    #expect(run.process.terminationStatus == 128 + SIGTERM)
    let text = try String(contentsOf: saved, encoding: .utf8)
    #expect(text.contains(#"notes = { "rye" }"#), "\(text)")
  }

  /// Standard error gone (its reader closed), standard output read: a line that is no action
  /// writes its error there, the kernel raises SIGPIPE, and the run ends (141) with a save made
  /// on the signal's thread while the main one reads on. Every action the output showed
  /// applied must be in the file saved: it showed "b" added, and the file held only "a".
  @Test func whatTheOutputShowedIsWhatIsSavedWhenStandardErrorGoes() throws {
    let (directory, feature, saved) = try CommandLineTests.notesFeature()
    defer { try? FileManager.default.removeItem(at: directory) }
    let process = try SignalAttack2Tests.runProcess(feature, in: directory)
    let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try stderr.fileHandleForReading.close()
    try process.run()
    try stderr.fileHandleForWriting.close()
    let pid = process.processIdentifier
    DispatchQueue.global().asyncAfter(deadline: .now() + 600) { kill(pid, SIGKILL) }
    var lines = #"{ type = "add", text = "a" }"# + "\n" + "{ type = \"bogus\"\n"
    for note in ["b", "c", "d", "e"] { lines += #"{ type = "add", text = "\#(note)" }"# + "\n" }
    stdin.fileHandleForWriting.write(Data(lines.utf8))
    try stdin.fileHandleForWriting.close()
    let shown = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    let text = (try? String(contentsOf: saved, encoding: .utf8)) ?? ""
    for note in ["a", "b", "c", "d", "e"] where shown.contains(#"text = "\#(note)""#) {
      #expect(text.contains(#""\#(note)""#), "shown added, not saved: \(note)\n\(shown)\n\(text)")
    }
  }
}
