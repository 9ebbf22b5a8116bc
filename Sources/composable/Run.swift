import Composable
import ComposableHost
import ComposableLua
import Foundation
import LuaKit
import Synchronization
import TerminalSupport

/// `composable run FEATURE.lua`: runs a feature in a Store. At a terminal that is the REPL
/// (`ReplLoop`); piped, it reads actions, one per line, with no prompt.
///
/// A line is an action: a bare word (`increment`) or a Lua table
/// (`{ type = "add", amount = 3 }`). Each action, and each action an effect sends back, is
/// printed with the diff of the state it led to; one that fails, with its error alone. At the end
/// of the input the command waits for running effects (up to `--wait` seconds) so their actions
/// are printed too. A failure along the way does not stop the run, but its exit status says so
/// (2, `ExitStatus.actionsFailed`).
struct Run: Command {
  static let shape = CommandShape(
    name: "run",
    abstract: "Run a Lua feature: the REPL at a terminal, one action per line when piped.",
    discussion: """
      Each action is printed with what it changed; one that fails prints its error alone (its \
      changes rolled back) and the next lines run on. Exit status: 0 when every line ran; 2 \
      when an action or an effect failed or a line was not an action (the other lines ran, and \
      the state they left is kept and saved); 1 when the feature did not load, the output \
      could not be written or the state could not be saved; 64 for a wrong command line.
      """,
    arguments: [FeatureOptions.argument],
    options: FeatureOptions.options + [
      .value("wait", help: "Seconds to wait for running effects when the input ends. (default: 5)"),
      .flag(
        "watch", help: "Reload the feature when it or a module it required is saved (hot reload)."),
    ])

  let options: FeatureOptions
  let wait: Double
  let watch: Bool

  init(_ arguments: ParsedArguments) throws(UsageError) {
    options = try FeatureOptions(arguments)
    wait = try arguments.value("wait", default: 5, expected: Seconds.expected) { text in
      Double(text).flatMap { Seconds.duration($0) != nil ? $0 : nil }
    }
    watch = arguments.flag("watch")
  }

  func run() async throws {
    let host = try await options.load()
    if isatty(STDIN_FILENO) == 1 {
      // A person at a terminal: the REPL. Piped input stays one action per line.
      try await ReplLoop(host: host, clock: ReplClock()).run()
      return
    }
    let loaded = host.feature
    let dependencies = host.dependencies
    // Written as it is read from Lua: a large state is never held whole, as a copy or as text.
    var output = StandardOutputChunks()
    output.write("\(loaded.file) loaded. State: ")
    try loaded.writeState(to: &output)
    output.write("\n")
    output.flush()
    print("Type actions, one per line: a word (increment) or a table ({ type = \"add\", n = 1 }).")
    fflush(nil)
    // The store holds a handle: the state stays in Lua, and each action's changes are read from
    // its transaction, so no copy of the state is kept beside it.
    let failures = Failures()
    let colored = Terminal.wantsColour(FileHandle.standardOutput)
    let reducer = LuaFeatureReducer<LuaFeatureHandle>(
      feature: loaded, dependencies: dependencies,
      onError: { error in
        failures.note(error)
        printError("\(error)")
      }
    ).printChanges(
      to: ChangePrinter(colored: colored) { text in
        // Flushed each time, also into a pipe: whoever reads the session sees each action as it
        // happens (an effect's too), not when a buffer fills.
        print(text)
        fflush(nil)
      })
    let store = Store(initialState: LuaFeatureHandle(feature: loaded), reducer: reducer)
    let parser = LuaLiteralReader()
    let file = host.file
    let hotReload =
      watch
      ? try HotReload(feature: loaded, file: file) { changed in
        let reloaded = HotReload.reload(
          loaded, from: file, changed: changed,
          report: {
            print($0)
            fflush(nil)
          },
          fail: { printError("\($0)") })
        if reloaded, loaded.hasMigrate {
          print("migrate(state):")
          Self.printMigration(loaded.migrationChanges, colored: colored)
        }
      } : nil
    defer { hotReload?.stop() }
    let files = dependencies.files
    var lines = InputLines()
    var quit = false
    while let line = lines.next() {
      let text = line.trimmingSpacesAndTabs
      if text.isEmpty { continue }
      if text.elementsEqual(":quit".utf8) || text.elementsEqual(":q".utf8) {
        quit = true
        break
      }
      do {
        await store.send(try parser.action(from: line))
      } catch {
        // A REPL command piped to `run`: say where it works.
        let hint =
          text.first == UInt8(ascii: ":")
          ? "\n  (`run` takes actions and :quit; commands such as :advance and :state are the "
            + "REPL's: composable repl FEATURE)" : ""
        failures.noteLineNotAnAction()
        printError("\(error)\(hint)")
      }
    }
    // At the end of the input, the effects get `--wait` to finish and send what they send; a
    // save waiting out its debounce is none of them (it is written at once, below), and `:quit`
    // waits for nothing.
    func working() async -> [RunningEffectSummary] {
      await store.runningEffects.filter { !$0.isStateSave }
    }
    let deadline = ContinuousClock.now + (quit ? .zero : Seconds.duration(wait) ?? .zero)
    while !(await working()).isEmpty, ContinuousClock.now < deadline {
      try? await Task.sleep(for: .milliseconds(20))
    }
    // What --wait cut off is said, not dropped silently.
    let running = await working()
    if !running.isEmpty && !quit {
      let seconds = wait == wait.rounded() && wait < 1e15 ? "\(Int(wait)) s" : "\(wait) s"
      let names = running.map { effect in
        (effectKindName(effect.kind, prefix: "effect.") ?? "an effect")
          + (effect.ids.last.map { " with id \($0)" } ?? "")
      }
      printError(
        "the input ended and \(running.count) effect\(running.count == 1 ? " was" : "s were") "
          + "still running after waiting --wait \(seconds) (\(names.joined(separator: ", "))); "
          + "\(running.count == 1 ? "it was" : "they were") stopped. To let effects finish, "
          + "pass a longer --wait SECONDS, or end the input with :quit to stop them at once; to "
          + "drive time yourself, use composable repl --paused and :advance",
        kind: "warning")
    }
    let saved = await Self.savePending(loaded, files: files)
    // Said last, where it is seen: the errors themselves may have scrolled by.
    let failed = failures.summary
    if let failed { printError(failed) }
    // Output that could not be written (a full disk, `> /dev/full`) and a state that could not
    // be saved end the run as a failure: a script checking the status must not take it for
    // done.
    let outputError = ts_standard_output_error()
    if outputError != 0 {
      let reason = outputError > 0 ? ": " + String(cString: strerror(outputError)) : ""
      printError("what the run printed could not all be written to its output\(reason)")
      throw ExitStatus.failure
    }
    if !saved { throw ExitStatus.failure }
    if failed != nil { throw ExitStatus.actionsFailed }
  }

  /// What failed during a run, counted as it is reported, for its summary and exit status.
  final class Failures: Sendable {
    private let counts = Mutex((actions: 0, effects: 0, lines: 0))

    /// An error the reducer reported: an action refused or rolled back, or an effect's failure.
    func note(_ error: LuaFeatureError) {
      counts.withLock {
        if case .effect = error { $0.effects += 1 } else { $0.actions += 1 }
      }
    }

    /// A line that could not be read as an action.
    func noteLineNotAnAction() { counts.withLock { $0.lines += 1 } }

    /// `2 actions failed, 1 line was not an action; the other lines ran`, or nil when nothing
    /// failed.
    var summary: String? {
      let (actions, effects, lines) = counts.withLock { ($0.actions, $0.effects, $0.lines) }
      var parts: [String] = []
      if actions > 0 {
        parts.append(actions == 1 ? "1 action failed" : "\(actions) actions failed")
      }
      if effects > 0 {
        parts.append(effects == 1 ? "1 effect failed" : "\(effects) effects failed")
      }
      if lines > 0 {
        parts.append(lines == 1 ? "1 line was not an action" : "\(lines) lines were not actions")
      }
      guard !parts.isEmpty else { return nil }
      return parts.joined(separator: ", ") + "; the other lines ran (exit status 2)"
    }
  }

  /// What `migrate(state)` changed (on a reload, or on a restored state), printed as an
  /// action's changes are: indented under the line before, or `(No state changes)`.
  static func printMigration(
    _ changes: Result<[LuaDifference], LuaFeatureError>?, colored: Bool
  ) {
    let text = changes.flatMap { LuaValue.notation(of: $0, colored: colored) }
    let lines = (text ?? "(No state changes)").split(
      separator: "\n", omittingEmptySubsequences: false)
    print(lines.map { "  " + $0 }.joined(separator: "\n"))
    fflush(nil)
  }

  /// The live files under `root`, which is made on the first write or append: a feature that
  /// never writes leaves no directory behind.
  static func files(under root: URL) -> FileClient {
    let live = FileClient.live(root: root)
    var client = live
    let makeRoot: @Sendable () throws -> Void = {
      try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }
    client.write = { path, contents in
      try makeRoot()
      try await live.write(path, contents)
    }
    client.append = { path, contents in
      try makeRoot()
      try await live.append(path, contents)
    }
    return client
  }

  /// Writes what the feature has not saved yet, saying so when that fails; whether it did.
  @discardableResult
  static func savePending(_ feature: LuaFeature, files: FileClient) async -> Bool {
    do {
      try await feature.savePending(files: files)
      return true
    } catch {
      saveFailed(error)
      return false
    }
  }

  static func saveFailed(_ error: any Error) {
    printError("the state could not be saved: \(error)")
  }
}
