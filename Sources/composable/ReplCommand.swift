import Composable
import ComposableHost
import ComposableLua
import Foundation
import LuaKit
import TerminalSupport

/// `composable repl FEATURE.lua`: the REPL on a feature (what `run` opens on a terminal).
struct ReplCommand: Command {
  static let shape = CommandShape(
    name: "repl",
    abstract: "Open the REPL on a Lua feature: actions, :state, = expressions, :undo, :reload.",
    arguments: [FeatureOptions.argument],
    options: FeatureOptions.options + [
      .flag(
        "paused",
        help: "Start with time stopped: timers and debounces move only with :advance "
          + "(or :resume)."),
      .flag(
        "replay", help: "After each reload, run the session's actions again through the new code."),
    ])

  let options: FeatureOptions
  let paused: Bool
  let replay: Bool

  init(_ arguments: ParsedArguments) throws(UsageError) {
    options = try FeatureOptions(arguments)
    paused = arguments.flag("paused")
    replay = arguments.flag("replay")
  }

  func run() async throws {
    let host = try await options.load()
    // Its status says what failed, as `run`'s REPL at a terminal says it (piped input too).
    let outcome = try await ReplLoop(
      host: host, clock: ReplClock(paused: paused), replaysOnReload: replay
    ).run()
    // Output that could not be written (a full disk, `> /dev/full`) fails the session, as it
    // does a run: a script checking the status must not take it for done (it exited 0).
    let outputError = ts_standard_output_error()
    if outputError != 0 {
      let reason = outputError > 0 ? ": " + String(cString: strerror(outputError)) : ""
      printError("what the session printed could not all be written to its output\(reason)")
    }
    let status: ExitStatus? =
      !outcome.saved || outputError != 0
      ? .failure : outcome.any ? .actionsFailed : nil
    // Piped, a last line says what failed, as `run` piped says it (a new user's finding: the
    // status was 2 with nothing said).
    if let status, isatty(STDIN_FILENO) != 1, let counts = outcome.counts,
      let said = Run.summary(
        actions: counts.actions, effects: counts.effects, lines: counts.lines,
        reloads: counts.reloads, saves: counts.saves, commands: counts.commands,
        replays: counts.replays, unsaved: !outcome.saved, status: status)
    {
      printError(said)
    }
    if let status { throw status }
  }
}

/// The REPL at the terminal: a prompt, a line, what it did.
struct ReplLoop {
  let host: FeatureHost
  let clock: ReplClock
  var replaysOnReload = false

  /// What failed in a session, for `run`'s exit status: `any` action, effect or reload
  /// (`SessionFailures`), and whether the state was `saved` at the end.
  struct Outcome {
    let any: Bool
    let saved: Bool
    /// What failed, counted (piped, the lines that were not actions among them).
    var counts:
      (
        actions: Int, effects: Int, reloads: Int, lines: Int, saves: Int, commands: Int,
        replays: Int
      )? = nil
  }

  /// Runs the session until `:quit` or the end of the input, then saves what is pending.
  @discardableResult
  func run() async throws -> Outcome {
    let colored = Terminal.wantsColour(FileHandle.standardOutput)
    let session = try ReplSession(
      feature: host.feature, file: host.file, env: host.env, dependencies: host.dependencies,
      clock: clock, colored: colored, replaysOnReload: replaysOnReload,
      actionGate: SignalSaver.actionGate, dataDirectory: host.dataDirectory
    ) { text in
      print(text)
      fflush(nil)
    }
    // Each save of the feature or a module it required swaps the new code in.
    let hotReload = try HotReload(feature: host.feature, file: host.file) { changed in
      await session.reload(changed: changed, ifCodeChanged: true)
    }
    defer { hotReload.stop() }
    print("\(host.feature.file.terminalSafe): state \(try host.feature.state())")
    let example = KnownActionTypes.firstNamed(in: host.file) ?? "increment"
    print(
      "Type an action (\(example), or a table), = expression, or :help. Saving the file reloads it."
    )
    // Piped, standard output is buffered: a program driving the REPL waited for the greeting
    // until the first answer (what the session prints is flushed line by line).
    fflush(nil)
    // At a terminal, libedit edits the line; otherwise (a pipe, a test) lines are read plain.
    let editor =
      isatty(STDIN_FILENO) == 1
      ? LineEditor(historyFile: LineEditor.historyFile(for: host.file)) { word, line in
        session.completions(of: word, in: line)
      } : nil
    var input = InputLines()
    while true {
      let prompt = await session.prompt
      let line: [UInt8]?
      // Piped, no prompt: it would start the line of what the action did, with nobody to
      // read it (as `python3 < file` and `sqlite3 < file` print none).
      if let editor {
        line = editor.readLine(prompt: prompt)
      } else {
        line = input.next()
      }
      guard let line else {  // Ctrl-D, or the end of a pipe
        await session.endOfInput()
        break
      }
      if await session.handle(bytes: line) == .quit { break }
    }
    await session.sayEffectsStoppingAtTheEnd()
    let ending = await Run.savePending(
      host.feature, files: host.dependencies.files, data: host.dataDirectory)
    if let path = host.feature.persistence?.path, let note = host.setAsideNote(saved: path) {
      printError(note, kind: "note")
    }
    // A save that failed, or went beside its file, during the session or at its end: 1.
    let saved = ending == .saved && session.failures.counts.saves == 0
    // Piped, a line that was not an action, a command that failed or a `:replay` that went
    // otherwise than recorded fails the script (as it does `run` piped, or `composable
    // replay`); typed at the prompt, it is typing, or what the person asked to see.
    var counts = session.failures.counts
    if editor != nil { (counts.lines, counts.commands, counts.replays) = (0, 0, 0) }
    return Outcome(
      any: session.failures.any || counts.lines + counts.commands + counts.replays > 0,
      saved: saved, counts: counts)
  }
}
