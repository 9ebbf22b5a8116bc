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
      changes rolled back) and the next lines run on. Exit status, piped or at a terminal (the \
      REPL): 0 when nothing failed; 2 when an action or an effect failed, a line was not an \
      action (piped), or a reload refused the new code (--watch, or the REPL's reload) (the \
      rest ran, and the state it left is kept and saved); 1 when the feature did not load, the \
      output could not be written or a save of the state failed; 64 for a wrong command line; \
      141 when the output's reader went away (`| head -1`: the run stops there, the state its \
      actions left saved), 130, 143 or 129 after Ctrl-C (piped), a kill or a closed terminal \
      (the state saved first). Piped, the last line on standard error counts the failures and \
      names the status.
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
      // A person at a terminal: the REPL. Piped input stays one action per line. Its status
      // says what failed, as a piped run's does.
      let failures = try await ReplLoop(host: host, clock: ReplClock()).run()
      if !failures.saved { throw ExitStatus.failure }
      if failures.any { throw ExitStatus.actionsFailed }
      return
    }
    let loaded = host.feature
    let dependencies = host.dependencies
    // Written as it is read from Lua: a large state is never held whole, as a copy or as text.
    var output = StandardOutputChunks()
    output.write("\(loaded.file.terminalSafe) loaded. State: ")
    try loaded.writeState(to: &output)
    output.write("\n")
    output.flush()
    // The example is a type the feature names (a new user's shopping list was told `increment`).
    let example = KnownActionTypes.firstNamed(in: host.file) ?? "increment"
    print("Type actions, one per line: a word (\(example)) or a table ({ type = \"add\", n = 1 }).")
    fflush(nil)
    // The store holds a handle: the state stays in Lua, and each action's changes are read from
    // its transaction, so no copy of the state is kept beside it.
    let failures = Failures()
    let colored = Terminal.wantsColour(FileHandle.standardOutput)
    let data = options.dataDirectory
    let reducer = LuaFeatureReducer<LuaFeatureHandle>(
      feature: loaded, dependencies: dependencies,
      onError: { error in
        // A failed save is a save that failed, said once (`noteSave`), not an effect.
        if let reason = error.stateSaveReason {
          if failures.noteSave(reason) {
            Self.saveFailed(reason, data: data, cause: SaveFailureCause(error))
          }
          return
        }
        failures.note(error)
        printError("\(error)")
      }
    ).printChanges(
      to: ChangePrinter(colored: colored) { text in
        // Flushed each time, also into a pipe: whoever reads the session sees each action as it
        // happens (an effect's too), not when a buffer fills.
        print(text)
        fflush(nil)
      },
      // An action that changed nothing, of a type the feature's files never name: said, as the
      // REPL says it (`toggle` piped for `toggle_read` went by as "(No state changes)"). Not for
      // a feature whose files name no type at all (a table of handlers): nothing to go by.
      // Scanned at the first such action, not at start: the scan's regexes cost milliseconds.
      unchanged: {
        [known = ScannedActionTypes(file: host.file, modules: loaded.moduleFiles)]
        action in
        let types = known.value
        return types.types.isEmpty ? nil : types.unknownTypeNote(for: action)
      }
    ).gatedAgainstEndingSignals()
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
          fail: {
            failures.noteReload()
            printError("\($0)")
          })
        if reloaded == .reloaded, loaded.hasMigrate {
          print("migrate(state):")
          Self.printMigration(loaded.migrationChanges, colored: colored)
        }
      } : nil
    defer { hotReload?.stop() }
    let files = dependencies.files
    var lines = InputLines()
    var quit = false
    var number = 0  // the line's, in the input: an error names it
    while let line = lines.next() {
      number += 1
      let text = line.trimmingSpacesAndTabs
      if text.isEmpty { continue }
      if text.elementsEqual(":quit".utf8) || text.elementsEqual(":q".utf8) {
        quit = true
        break
      }
      do {
        // An address first (`path#1 toggle`) is read as the REPL reads it.
        await store.send(
          try ReplNavigation.action(from: line, of: loaded) { try parser.action(from: $0) })
      } catch {
        // A REPL command piped to `run`, or a table that goes on to the next line: say where
        // it works.
        let hint =
          text.first == UInt8(ascii: ":")
          ? "\n  (`run` takes actions and :quit; commands such as :advance and :state are the "
            + "REPL's: composable repl FEATURE)"
          : parser.isIncomplete(line)
            ? "\n  (piped, `run` reads an action a line: write it on one line, or pipe it to "
              + "composable repl FEATURE, which reads a table on over the lines that follow)"
            : "\(error)".contains("global 'state'")
              ? "\n  (an action line reads `state` in the REPL only: composable repl FEATURE)"
              : text.first == UInt8(ascii: "=")
                ? "\n  (`= EXPRESSION` shows a value in the REPL only: composable repl FEATURE)"
                : ""
        failures.noteLineNotAnAction()
        printError("line \(number) of the input: \(error)\(hint)")
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
    // What --wait or :quit cut off is said, not dropped silently.
    let running = await working()
    let names = running.map { effect in
      (effectKindName(effect.kind, prefix: "effect.") ?? "an effect")
        + (effect.ids.last.map { " with id \($0)" } ?? "")
    }
    if !running.isEmpty && quit {
      printError(
        ":quit stopped \(running.count) effect\(running.count == 1 ? "" : "s") still running "
          + "(\(names.joined(separator: ", "))). To let effects finish, end the input without "
          + ":quit: the run then waits --wait SECONDS (5 by default) for them",
        kind: "note")
    }
    if !running.isEmpty && !quit {
      let seconds = wait == wait.rounded() && wait < 1e15 ? "\(Int(wait)) s" : "\(wait) s"
      printError(
        "the input ended and \(running.count) effect\(running.count == 1 ? " was" : "s were") "
          + "still running after waiting --wait \(seconds) (\(names.joined(separator: ", "))); "
          + "\(running.count == 1 ? "it was" : "they were") stopped. To let effects finish, "
          + "pass a longer --wait SECONDS, or end the input with :quit to stop them at once; to "
          + "drive time yourself, use composable repl --paused and :advance",
        kind: "warning")
    }
    hotReload?.stop()
    await Self.settleSaves(of: store)
    failures.closeSaves(
      saved: await Self.savePending(loaded, files: files, failures: failures, data: data)
        != .failed)
    // Output that could not be written (a full disk, `> /dev/full`) and a state that could not
    // be saved end the run as a failure: a script checking the status must not take it for
    // done.
    let outputError = ts_standard_output_error()
    // The output's reader went away (`| head -1`) but the input ended before the SIGPIPE's
    // handler stopped the run: the same status as when it did, whichever came first.
    let readerGone = outputError == EPIPE || (outputError != 0 && SignalSaver.outputIsGone())
    if readerGone {
      printError(
        "the output's reader went away before the run ended: what it printed after that was "
          + "lost (exit status \(ExitStatus.outputGone.code))")
    } else if outputError != 0 {
      let reason = outputError > 0 ? ": " + String(cString: strerror(outputError)) : ""
      printError("what the run printed could not all be written to its output\(reason)")
    }
    let status: ExitStatus? =
      readerGone
      ? .outputGone
      : outputError != 0 || failures.savesFailed
        ? .failure : failures.any ? .actionsFailed : nil
    if let path = loaded.persistence?.path, let note = host.setAsideNote(saved: path) {
      printError(note, kind: "note")
    }
    // Said last, where it is seen: the errors themselves may have scrolled by.
    if let status, let failed = failures.summary(status: status) { printError(failed) }
    if let status { throw status }
  }

  /// Waits for the saves of the state in flight: those waiting out their debounce are
  /// cancelled (`savePending` writes what they would have), one writing is waited for, so that
  /// its error, if it fails, is reported (and counted) before the summary, never after it.
  static func settleSaves<Action>(of store: Store<LuaFeatureHandle, Action>) async {
    for effect in await store.runningEffects where effect.isStateSave {
      await store.cancelEffect(number: effect.number)
    }
    while await store.runningEffects.contains(where: \.isStateSave) {
      try? await Task.sleep(for: .milliseconds(2))
    }
  }

  /// What failed during a run, counted as it is reported, for its summary and exit status.
  final class Failures: Sendable {
    private let counts = Mutex(
      (
        actions: 0, effects: 0, lines: 0, reloads: 0, saves: 0, lastSave: String?.none,
        unsaved: false
      ))

    /// An error the reducer reported: an action refused or rolled back, or an effect's failure.
    /// (A failed save goes to `noteSave`.)
    func note(_ error: LuaFeatureError) {
      counts.withLock {
        if case .effect = error { $0.effects += 1 } else { $0.actions += 1 }
      }
    }

    /// A line that could not be read as an action.
    func noteLineNotAnAction() { counts.withLock { $0.lines += 1 } }

    /// A reload (`--watch`) that refused the new code.
    func noteReload() { counts.withLock { $0.reloads += 1 } }

    /// A save of the state that failed for `reason`; whether to say so. The same reason again
    /// right after (each action's save failing alike, the save at the end retrying one that
    /// failed) is the same failure: counted once, and not said again.
    func noteSave(_ reason: String) -> Bool {
      counts.withLock {
        $0.unsaved = true
        guard $0.lastSave != reason else { return false }
        $0.lastSave = reason
        $0.saves += 1
        return true
      }
    }

    /// The save at the end: `saved`, what the state is now is on disk (or nothing was kept).
    func closeSaves(saved: Bool) { counts.withLock { $0.unsaved = !saved } }

    /// Whether a save of the state failed during the run: the run exits 1.
    var savesFailed: Bool { counts.withLock { $0.saves > 0 } }

    /// Whether anything failed.
    var any: Bool {
      counts.withLock { $0.actions + $0.effects + $0.lines + $0.reloads + $0.saves > 0 }
    }

    /// `2 actions failed, 1 line was not an action; the other lines ran (exit status 2)`, or
    /// nil when nothing failed. `status` is the one the run exits with.
    func summary(status: ExitStatus) -> String? {
      let counted = counts.withLock { $0 }
      return Run.summary(
        actions: counted.actions, effects: counted.effects, lines: counted.lines,
        reloads: counted.reloads, saves: counted.saves, unsaved: counted.unsaved, status: status)
    }
  }

  /// What failed in a piped run or REPL session, as its last line says it: `2 actions failed, 1
  /// line was not an action; the other lines ran (exit status 2)`; nil when nothing failed.
  static func summary(
    actions: Int, effects: Int, lines: Int, reloads: Int, saves: Int, commands: Int = 0,
    replays: Int = 0, unsaved: Bool, status: ExitStatus
  ) -> String? {
    func count(_ number: Int, _ one: String, _ many: String) -> String? {
      number == 0 ? nil : number == 1 ? "1 \(one)" : "\(number) \(many)"
    }
    let parts = [
      count(actions, "action failed", "actions failed"),
      count(effects, "effect failed", "effects failed"),
      count(lines, "line was not an action", "lines were not actions"),
      count(reloads, "reload was refused", "reloads were refused"),
      count(saves, "save of the state failed", "saves of the state failed"),
      count(commands, "command failed", "commands failed"),
      count(
        replays, ":replay went otherwise than recorded", ":replays went otherwise than recorded"),
    ].compactMap { $0 }
    guard !parts.isEmpty else { return nil }
    let rest = actions + lines > 0 ? "; the other lines ran" : ""
    let unsavedNote = saves == 0 ? "" : unsaved ? ", and the state is not saved" : ""
    return parts.joined(separator: ", ") + rest + unsavedNote + " (exit status \(status.code))"
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

  /// The live files under the directory's root, which is made (and claimed: a default directory
  /// kept for another feature fails the write) at the first write, append or lock: a feature
  /// that never writes leaves no directory behind. A remove claims a directory that is there.
  /// The directory's marker (`DataDirectoryOwner`) is not the feature's to write, append to or
  /// remove: a feature that did would give its folder away, or take another's; nor is any name
  /// the host keeps for its files (`.composable-`), reached by a symlink as by its name.
  static func files(under directory: ClaimedDataDirectory) -> FileClient {
    let live = FileClient.live(
      root: directory.root,
      reserving: [DataDirectoryOwner.markerName: DataDirectoryOwner.markerIsNotTheFeatures],
      reservingNamesStartingWith: [FileClient.hostNamePrefix: FileClient.hostNamesAreTheHosts])
    var client = live
    let makeRoot: @Sendable () throws -> Void = { try directory.prepare() }
    client.write = { path, contents in
      try DataDirectoryOwner.refuseMarker(path)
      try FileClient.refuseTemporaryName(path)  // before the folder is made and claimed
      try makeRoot()
      try await live.write(path, contents)
    }
    client.append = { path, contents in
      try DataDirectoryOwner.refuseMarker(path)
      try FileClient.refuseTemporaryName(path)
      try makeRoot()
      try await live.append(path, contents)
    }
    client.whileLocked = { path, body in
      try makeRoot()
      try await live.whileLocked(path, body)
    }
    client.remove = { path in
      try DataDirectoryOwner.refuseMarker(path)
      if FileManager.default.fileExists(atPath: directory.root.path) { try makeRoot() }
      try await live.remove(path)
    }
    return client
  }

  /// Writes what the feature has not saved yet, saying so when that fails; what became of it.
  /// With `failures`, a failure is counted there, and not said again when it is the one a save
  /// during the run said.
  @discardableResult
  static func savePending(
    _ feature: LuaFeature, files: FileClient, failures: Failures? = nil,
    data: URL? = nil
  ) async -> SaveOutcome {
    do {
      try await feature.savePending(files: files)
      // Saved, but where an earlier save went: beside the file another writer changed.
      return feature.stateSavedAside == nil ? .saved : .savedBeside
    } catch {
      let reason = feature.saveFailureReason(error)
      let cause = SaveFailureCause(error)
      if failures?.noteSave(reason) ?? true { saveFailed(reason, data: data, cause: cause) }
      return cause == .anotherWriter ? .savedBeside : .failed
    }
  }

  /// What became of a save at the end.
  enum SaveOutcome {
    /// Written to its file (or nothing was left to write).
    case saved
    /// Written beside its file, which another writer changed.
    case savedBeside
    /// Not written.
    case failed
  }

  /// Says that a save failed: why, where the feature's files are, and what to do.
  /// When the data directory itself is at fault (under a file, not writable), that is said,
  /// with its fix, in place of the fix the file's error gave (which was about the file).
  static func saveFailed(_ reason: String, data: URL?, cause: SaveFailureCause = .files) {
    let message = saveFailure(reason, data: data, cause: cause)
    saidSaveFailure.withLock { $0 = message }
    printError(message)
  }

  /// The last save failure `saveFailed` said: a signal's save that fails the same way (the
  /// debounced save failed just before) is not said twice.
  static let saidSaveFailure = Mutex<String?>(nil)

  /// What `saveFailed` says. A failure in the feature (what the state holds, its
  /// `is_duplicate`) says its own fix, never one about the data directory; a file another
  /// writer changed, where the state went instead.
  static func saveFailure(
    _ reason: String, data: URL?, cause: SaveFailureCause = .files
  ) -> String {
    switch cause {
    case .state: return "the state could not be saved: \(reason)"  // not the folder's doing
    case .anotherWriter:
      return "the state was saved beside its file"
        + (data.map { " in the data directory \($0.path)" } ?? "") + ": \(reason)"
    case .files: break
    }
    guard let data else { return "the state could not be saved: \(reason)" }
    guard let fix = DataDirectory.problem(with: data) else {
      let generalFix =
        reason.contains("To fix, ")
        ? "" : ". To fix, make sure it is a directory you can write to, or pass --data with one"
      return "the state could not be saved in the data directory \(data.path): \(reason)"
        + generalFix
    }
    let why = reason.range(of: ". To fix, ").map { String(reason[..<$0.lowerBound]) } ?? reason
    return "the state could not be saved in the data directory \(data.path) (\(why)): \(fix)"
  }

}

/// What a save that failed failed on, for what is said of it.
enum SaveFailureCause: Equatable {
  /// The files: the data directory, the saved file, the disk.
  case files
  /// The feature: what the state holds (a function), its `persist.is_duplicate` raising.
  case state
  /// Another writer changed the file since it was loaded: the state was written beside it.
  case anotherWriter

  init(_ error: any Error) {
    if error is StateSaverConflict {
      self = .anotherWriter
    } else if let error = error as? LuaFeatureError {
      self = error.isStateSavedAside ? .anotherWriter : error.isAboutTheSavedState ? .state : .files
    } else {
      self = .files
    }
  }
}
