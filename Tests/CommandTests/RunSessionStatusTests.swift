import Foundation
import TestSupport
import Testing

/// `composable run`'s exit status says what failed in every mode: at a terminal (the REPL), an
/// action that failed makes it 2, as piped; under `--watch`, so does a reload that refused the
/// new code.
@Suite(.serialized) struct RunSessionStatusTests {
  static let feature = """
    return {
      initial_state = function() return { count = 0 } end,
      reduce = function(state, action)
        if action.type == "increment" then state.count = state.count + 1 end
        if action.type == "boom" then error("boom") end
      end,
    }
    """

  @Test func runAtATerminalExitsTwoAfterAFailedAction() throws {
    let directory = try makeTemporaryDirectory("run-terminal-status")
    defer { try? FileManager.default.removeItem(at: directory) }
    try Self.feature.write(
      to: directory.appendingPathComponent("tally.lua"), atomically: true, encoding: .utf8)
    let failing = try ReplTerminalTests.Terminal(directory: directory, command: "run")
    #expect(failing.type("", expecting: "> "), "\(failing.transcript)")
    #expect(failing.type("boom\r", expecting: "boom"), "\(failing.transcript)")
    #expect(failing.type("increment\r", expecting: "+ count = 1"), "\(failing.transcript)")
    #expect(failing.end() == 2, "\(failing.transcript)")

    let passing = try ReplTerminalTests.Terminal(directory: directory, command: "run")
    #expect(passing.type("increment\r", expecting: "+ count = 1"), "\(passing.transcript)")
    #expect(passing.end() == 0, "\(passing.transcript)")
  }

  @Test func runWatchExitsTwoAfterARefusedReload() throws {
    let directory = try makeTemporaryDirectory("run-watch-status")
    defer { try? FileManager.default.removeItem(at: directory) }
    let feature = directory.appendingPathComponent("tally.lua")
    try Self.feature.write(to: feature, atomically: false, encoding: .utf8)
    let process = Process()
    process.executableURL = try builtProduct("composable")
    process.arguments = ["run", feature.path, "--watch", "--wait", "0", "--data", directory.path]
    let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    let output = Locked("")
    for pipe in [stdout, stderr] {
      pipe.fileHandleForReading.readabilityHandler = { handle in
        let data = handle.availableData
        output.withLock { $0 += String(decoding: data, as: UTF8.self) }
      }
    }
    func waitFor(_ text: String) -> Bool {
      for _ in 0..<2_000 {
        if output.withLock({ $0.contains(text) }) { return true }
        Thread.sleep(forTimeInterval: 0.01)
      }
      return false
    }
    stdin.fileHandleForWriting.write(Data("increment\n".utf8))
    #expect(waitFor("+ count = 1"), "\(output.withLock { $0 })")
    try "return {".write(to: feature, atomically: true, encoding: .utf8)
    #expect(waitFor("the old code runs on"), "\(output.withLock { $0 })")
    stdin.fileHandleForWriting.write(Data("increment\n".utf8))
    #expect(waitFor("+ count = 2"), "\(output.withLock { $0 })")
    try stdin.fileHandleForWriting.close()
    process.waitUntilExit()
    for pipe in [stdout, stderr] { pipe.fileHandleForReading.readabilityHandler = nil }
    let rest = stderr.fileHandleForReading.readDataToEndOfFile()
    output.withLock { $0 += String(decoding: rest, as: UTF8.self) }
    #expect(process.terminationStatus == 2, "\(output.withLock { $0 })")
    #expect(
      output.withLock { $0 }.hasSuffix("error: 1 reload was refused (exit status 2)\n"),
      "\(output.withLock { $0 })")
  }
}
