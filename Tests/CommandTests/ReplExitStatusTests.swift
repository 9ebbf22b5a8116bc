import Foundation
import TestSupport
import Testing

/// `composable repl` exits as `run`'s REPL at a terminal does: 2 when an action failed, 0 when
/// nothing did. It exited 0 whatever failed (a new user's finding: piped, `explode` gave 0 where
/// `composable run` gave 2, as the README's exit statuses say).
@Suite struct ReplExitStatusTests {
  static let feature = """
    return {
      initial_state = function() return { n = 0 } end,
      reduce = function(state, action)
        if action.type == "boom" then state.n = 99 error("boom") end
        state.n = state.n + 1
      end,
    }
    """

  func status(input: String) throws -> (Int32, String) {
    let outcome = try session(input: input)
    return (outcome.status, outcome.output + outcome.errors)
  }

  /// `composable repl` on the feature (`source`) in a folder of its own, `input` piped in.
  func session(input: String, source: String = Self.feature) throws -> Command.Outcome {
    let directory = try makeTemporaryDirectory("repl-exit-status")
    defer { try? FileManager.default.removeItem(at: directory) }
    let feature = directory.appendingPathComponent("tally.lua")
    try source.write(to: feature, atomically: true, encoding: .utf8)
    return try Command.run(
      ["repl", feature.path, "--data", directory.appendingPathComponent("data").path],
      input: input)
  }

  @Test func aFailedActionIsStatusTwo() throws {
    let (status, text) = try status(input: "increment\nboom\nincrement\n")
    #expect(status == 2, "\(text)")
    #expect(text.contains("boom"), "\(text)")
  }

  /// Piped, a line that is not an action fails the script, as the README says and as `run`
  /// piped has it: it exited 0.
  @Test func aLineThatIsNotAnActionIsStatusTwo() throws {
    let (status, text) = try status(input: "increment\n{ 1 2 }\nincrement\n")
    #expect(status == 2, "\(text)")
    #expect(text.contains("error: "), "\(text)")
    #expect(text.contains("+ n = 2") || text.contains("n = 2"), "the lines after it ran: \(text)")
  }

  /// An action still open when the input ends is said, not dropped without a word, and fails
  /// the script.
  @Test func anActionStillOpenAtTheEndIsSaidAndStatusTwo() throws {
    let (status, text) = try status(input: "increment\n{ type = \"increment\",\n  by = 2\n")
    #expect(status == 2, "\(text)")
    #expect(
      text.contains(
        "error: the input ended with an action still open (a bracket, a string or a comment "
          + "not closed), so it was not run: { type = \"increment\", (and 1 more lines). To fix, "
          + "close what is open"), "\(text)")
  }

  /// A string left open counts the same: its lines were not run.
  @Test func aStringStillOpenAtTheEndIsSaid() throws {
    let (status, text) = try status(input: "{ type = \"note\", text = [[one\ntwo\n")
    #expect(status == 2, "\(text)")
    #expect(text.contains("so it was not run: { type = \"note\", text = [[one"), "\(text)")
  }

  /// Piped, the last line on standard error says what failed and the status, as `run` piped
  /// says it (a new user's finding: the status was 2 with nothing said).
  @Test func aLastLineSaysWhatFailed() throws {
    let outcome = try session(input: "increment\nboom\n{ 1 2 }\nincrement\n")
    #expect(outcome.status == 2)
    #expect(
      outcome.errors.hasSuffix(
        "error: 1 action failed, 1 line was not an action; the other lines ran (exit status 2)\n"),
      "\(outcome.errors)")
    let clean = try session(input: "increment\n")
    #expect(clean.status == 0 && clean.errors.isEmpty, "\(clean.errors)")
  }

  /// Piped, a command that said an error fails the script as a bad line does (an attacker's
  /// finding: `:save` to a folder that is not there exited 0): `:save`, an unknown command, an
  /// expression that raises, a jump out of range.
  @Test(arguments: [":save /nonexistent/folder/x.lua", ":frob", "= nil + 1", ":goto 99"])
  func aCommandThatFailedIsStatusTwo(command: String) throws {
    let (status, text) = try status(input: "increment\n\(command)\nincrement\n")
    #expect(status == 2, "\(text)")
    #expect(
      text.hasSuffix("error: 1 command failed (exit status 2)\n"), "\(command): \(text)")
  }

  /// Piped, a `:replay` that went otherwise than the session fails the script, as `composable
  /// replay` fails on it (it exited 0, the difference said in the middle of the output); one
  /// that went as recorded, failed actions and all, does not.
  @Test func aReplayThatWentOtherwiseIsStatusTwo() throws {
    // Its second `once` raises: one in the session, replayed, raises now.
    let once = """
      local seen = 0
      return {
        initial_state = function() return { n = 0 } end,
        reduce = function(state, action)
          if action.type == "once" then
            seen = seen + 1
            if seen > 1 then error("once only") end
          end
          if action.type == "boom" then error("boom") end
          state.n = state.n + 1
        end,
      }
      """
    let otherwise = try session(input: "once\nincrement\n:replay\nincrement\n", source: once)
    #expect(otherwise.status == 2, "\(otherwise.output)\(otherwise.errors)")
    #expect(
      otherwise.output.contains(#"action 1 ({ type = "once" }) now raises"#), "\(otherwise.output)")
    #expect(
      otherwise.errors.hasSuffix("error: 1 :replay went otherwise than recorded (exit status 2)\n"),
      "\(otherwise.errors)")
    let asRecorded = try session(input: "increment\nboom\n:replay\n", source: once)
    #expect(asRecorded.status == 2, "the failed action: \(asRecorded.errors)")
    #expect(
      asRecorded.errors.hasSuffix("error: 1 action failed; the other lines ran (exit status 2)\n"),
      "\(asRecorded.errors)")
    let clean = try session(input: "increment\n:replay\n", source: once)
    #expect(clean.status == 0, "\(clean.errors)")
  }

  /// Output that could not be written fails the session (status 1), said on standard error, as
  /// it does a run (an attacker's finding: `> /dev/full` exited 0).
  @Test func outputThatCouldNotBeWrittenIsStatusOne() throws {
    let directory = try makeTemporaryDirectory("repl-full")
    defer { try? FileManager.default.removeItem(at: directory) }
    let feature = directory.appendingPathComponent("tally.lua")
    try Self.feature.write(to: feature, atomically: true, encoding: .utf8)
    let process = Process()
    process.executableURL = try builtProduct("composable")
    process.arguments = ["repl", feature.path, "--data", directory.appendingPathComponent("d").path]
    let stdin = Pipe(), stderr = Pipe()
    process.standardInput = stdin
    process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/full"))
    process.standardError = stderr
    try process.run()
    stdin.fileHandleForWriting.write(Data("increment\n".utf8))
    try stdin.fileHandleForWriting.close()
    let errors = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 1, "\(errors)")
    #expect(
      errors.contains("what the session printed could not all be written to its output"),
      "\(errors)")
  }

  @Test func nothingFailedIsStatusZero() throws {
    let (status, text) = try status(input: "increment\nincrement\n")
    #expect(status == 0, "\(text)")
  }
}
