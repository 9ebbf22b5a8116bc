import ComposableHost
import ComposableLua
import Foundation
import LuaKit
import TerminalSupport

/// `composable replay FILE`: runs a session saved by the REPL's `:save` again, headless, on the
/// feature's code as it is now, and prints the final state.
struct ReplayCommand: Command {
  static let shape = CommandShape(
    name: "replay",
    abstract: "Replay a session saved with :save, headless, and print the final state.",
    discussion: """
      The actions run again from the session's initial state, each with the env answers it \
      had; effects do not run (their results are in the session, as the actions they sent). \
      Exits 1 when the replay goes otherwise than the recording (an action raises now and did \
      not, or no longer raises, or returns another effect), and refuses a session whose \
      actions the feature does not handle.
      """,
    arguments: [.init(name: "file", help: "The session file (:save FILE in the REPL).")],
    options: [
      .value(
        "feature", help: "The feature to replay it on (default: the one it was recorded with).")
    ])

  let file: String
  let feature: String?

  init(_ arguments: ParsedArguments) {
    file = arguments.string("file") ?? ""
    feature = arguments.string("feature")
  }

  func run() throws {
    let sessionURL = URL(pathGiven: file)
    let recording: SessionRecording
    do { recording = try SessionRecording.read(from: sessionURL) } catch {
      try fail("\(error)" + Self.featureGivenNote(sessionURL))
    }
    // The session's own `feature` stays under its folder; one named here is the user's choice.
    let featureURL: URL
    if let feature {
      featureURL = URL(pathGiven: feature)
    } else {
      do { featureURL = try recording.featureFile(besideSession: sessionURL) } catch {
        try fail("\(error)")
      }
    }
    let playback: SessionPlayback
    do { playback = try SessionPlayback.run(recording, feature: featureURL) } catch let
      mismatch as SessionFit.Mismatch
    {
      try fail("\(sessionURL.lastPathComponent) does not fit: \(mismatch)")
    } catch {
      try fail("\(error)")
    }
    let count = recording.actions.count
    print(
      "replayed \(count) \(count == 1 ? "action" : "actions") of \(sessionURL.lastPathComponent) "
        + "on \(featureURL.lastPathComponent)")
    if playback.codeChanged { print("the code changed since the session was recorded") }
    for line in playback.report.lines(colored: false) { print(line) }
    print("state " + playback.state.pretty())
    // The actions that raised as they did when recorded are the session's, rolled back then as
    // now: a replay that goes as recorded passes (it exited 1 on them, and 0 on an effect that
    // changed: a new user's finding).
    let report = playback.report
    let asRecorded = report.asRecorded
    if asRecorded, playback.raised > 0 {
      print(
        "(\(playback.raised) \(playback.raised == 1 ? "action" : "actions") raised, as when "
          + "recorded)")
    }
    // The report and the state not written (a full disk, `> /dev/full`): said, and 1; it exited
    // 0 without a word (an attacker's finding). Flushed here, before the error line.
    let outputError = ts_standard_output_error()
    if outputError != 0 {
      let reason = outputError > 0 ? ": " + String(cString: strerror(outputError)) : ""
      try fail("the replay's report could not all be written to its output\(reason)")
    }
    if asRecorded { return }
    printError(
      "the replay goes otherwise than the recording (above). To fix, change the code back, or "
        + "record the session again if the change is meant")
    throw ExitStatus.failure
  }

  /// When the file that is no session reads as a feature (`composable replay todos.lua`), what
  /// to give instead: the reader's own error spoke of a data file's `local`s.
  static func featureGivenNote(_ file: URL) -> String {
    guard let source = try? LuaSourceFile.read(file),
      !source.hasPrefix("-- A ComposableLua session"), source.contains("reduce")
    else { return "" }
    return ". \(file.lastPathComponent) looks like a feature, not a session: replay takes a "
      + "session file, as the REPL's :save writes it (composable replay session.lua), and the "
      + "feature with --feature when it is not the one the session names"
  }

  private func fail(_ message: String) throws -> Never {
    printError(message)
    throw ExitStatus.failure
  }
}
