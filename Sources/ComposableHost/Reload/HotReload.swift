import Composable
import ComposableLua
import Foundation
import LuaKit

/// Hot reload: the feature's file and every module it required, watched (`FileWatcher`); each
/// save loads the code again and swaps it in between two actions, keeping the state (and
/// running `migrate(state)` when the new code has one). Effects in flight keep running; their
/// actions reach the new reducer. Broken code is refused, and the old code runs on.
public final class HotReload: Sendable {
  let watcher: FileWatcher

  /// `reload(changed)` is called once per save that changed the code (on a task of its own)
  /// with the paths saved; the files are watched again after it, since the new code may
  /// require other modules.
  ///
  /// ```swift
  /// let file = URL(fileURLWithPath: "features/counter.lua")
  /// let feature = try LuaFeature(contentsOf: file)
  /// let hotReload = try HotReload(feature: feature, file: file) { changed in
  ///   HotReload.reload(
  ///     feature, from: file, changed: changed, report: { print($0) },
  ///     fail: { print("error: \($0)") })
  /// }
  /// defer { hotReload.stop() }
  /// ```
  public init(
    feature: LuaFeature, file: URL, reload: @escaping @Sendable ([String]) async -> Void
  ) throws {
    let files: @Sendable () -> [URL] = { [file] + (feature.moduleFiles?.required ?? []) }
    let box = WatcherBox()
    watcher = try FileWatcher(files: files()) { changed in
      // One save at a time, in order: the next waits for this one.
      box.serially {
        // A save that left the code as it runs (a save of the same bytes, or one a reload took
        // before its event came) reloads nothing: the late event of a `:reload`ed edit reloaded
        // again under the REPL's next command (`:test`, an attacker's finding). A host that
        // reloads by other ways too asks again where it serializes them (`ReplSession.reload`):
        // here, a `:reload` may come between the question and the reload.
        if !feature.holdsLoadedCode(file) { await reload(changed) }
        try? box.watcher?.watch(files())
      }
    }
    box.watcher = watcher
  }

  /// Stops watching the files: later saves are not reported. Reloads of earlier saves still run.
  public func stop() { watcher.stop() }

  // The watcher's thread holds what reloads, which holds the watcher: without this, a
  // HotReload let go of without `stop()` would reload on every save for the process's life.
  deinit { watcher.stop() }

  /// What a reload did.
  public enum Outcome: Sendable, Equatable {
    /// The new code runs.
    case reloaded
    /// The new code was refused (a syntax error, an error at load, `migrate` raising): the old
    /// code runs on.
    case refused
    /// The feature's file or a module it requires is gone or empty, as it is for a moment while
    /// some editors save (a delete then a write, a truncation then a write): nothing was
    /// loaded, the old code runs on, and the save that brings the code back reloads it. Not a
    /// refusal: a run ended with exit status 2 for an editor's save that went well.
    case waiting
  }

  /// Loads `file` again into `feature`; what happened is one line to `report`: `reloaded
  /// todos.lua in 9 ms`, `reloaded todos.lua (row.lua changed) in 9 ms` when the save was of a
  /// module it required, or that the file is gone or empty for now; or one to `fail`: the
  /// error (file:line) and that the old code runs on.
  @discardableResult
  public static func reload(
    _ feature: LuaFeature, from file: URL, changed: [String] = [], report: (String) -> Void,
    fail: (String) -> Void
  ) -> Outcome {
    let start = ContinuousClock.now
    do {
      let saved = feature.persistence?.path
      try feature.swap(toContentsOf: file)
      let milliseconds = Int((Seconds.of(ContinuousClock.now - start) * 1000).rounded())
      let others = changed.map { URL(fileURLWithPath: $0).lastPathComponent }
        .filter { $0 != file.lastPathComponent }
      let why = others.isEmpty ? "" : " (\(others.joined(separator: ", ")) changed)"
      report("reloaded \(file.lastPathComponent)\(why) in \(milliseconds) ms")
      if let note = persistenceNote(before: saved, after: feature.persistence?.path) {
        report(note)
      }
      if let problem = feature.initialStateProblem {
        // The state goes on; a new run of this code would stop at load (an attacker's finding).
        report("  note: \(problem); the state goes on, but a new run of this code would not start")
      }
      if let (gaps, count) = feature.reloadedShapeGaps {
        report(reloadedShapeNote(gaps: gaps, count: count, migrates: feature.hasMigrate))
      } else if feature.initialStateChanged, !feature.hasMigrate {
        // A start that changed, which the state going on never shows (an attacker's finding);
        // new code with a migrate(state) has taken the state from the old one already.
        report(
          "  note: initial_state() gives another state now; the state goes on as it was (a REPL "
            + "session's :goto 0 and :replay start from the state it began with)")
      }
      return .reloaded
    } catch {
      // The swap failed, so the save that puts the code back reloads it (`holdsLoadedCode`).
      // Waited for: the feature's file gone or empty, or the module the load stopped at
      // (`awaitedModule`: empty, or gone after an earlier load required it), when the load's
      // error is that module's. One a `pcall(require, ...)` passed over did not stop the load,
      // and waiting on it hid new code broken elsewhere (an attacker's finding).
      let awaited = feature.moduleFiles?.awaitedModule.flatMap { module in
        "\(error)".contains(module.lastPathComponent) ? module : nil
      }
      if let note = ([file] + (awaited.map { [$0] } ?? [])).lazy.compactMap(waitingNote).first {
        report(note)
        return .waiting
      }
      if let error = error as? LuaSourceFile.Unreadable {
        fail("cannot read \(file.lastPathComponent): \(error.reason); the old code runs on")
      } else {
        fail("\(error); the old code runs on")
      }
    }
    return .refused
  }

  /// What to say when a file of the code is gone or empty for now (`Outcome.waiting`), or nil.
  static func waitingNote(for file: URL) -> String? {
    var status = stat()
    let name = file.lastPathComponent
    guard stat(file.path, &status) == 0 else {
      guard errno == ENOENT || errno == ENOTDIR else { return nil }
      return "\(name) is gone (deleted or moved away); the old code runs on, and reloads when "
        + "it is back"
    }
    guard status.st_mode & S_IFMT == S_IFREG, status.st_size == 0 else { return nil }
    return "\(name) is empty (a save under way?); the old code runs on, and reloads at its "
      + "next save"
  }
}

/// The note after `reloaded ...` when the state the old code left is not shaped as the new
/// code's `initial_state()` gives it: a field added to `initial_state()` is not in the state the
/// session goes on with, and the next action reading it failed far from the cause (`attempt to
/// index a nil value`), with nothing said at the reload (an attacker's and a new user's finding).
func reloadedShapeNote(gaps: [RestoredShapeGap], count: Int, migrates: Bool) -> String {
  let them = count == 1 ? "it" : "them"
  let left = migrates ? "; its migrate(state) left \(them) so" : ""
  return "  note: the state is not shaped as the new initial_state() gives it: "
    + RestoredShapeGap.places(gaps, count: count) + left + " (the state goes on as the old code "
    + "left it). An action reading \(them) may fail. To fix, have migrate(state) set \(them) "
    + "(\(RestoredShapeGap.fix(for: gaps)))"
}

/// What a reload changed in where the state is saved, for a line after `reloaded ...`: a
/// reload that dropped `persist` stopped the saves without a word. Nil when nothing changed.
func persistenceNote(before: DataPath?, after: DataPath?) -> String? {
  switch (before, after) {
  case let (before?, nil):
    return "  the new code has no persist: the state is not saved any more (the last save "
      + "stays in \(before))"
  case let (nil, after?):
    return "  the new code persists: the state is saved in \(after) from the next change"
  case let (before?, after?) where before != after:
    return "  persist.path is now \(after) (was \(before)): the next change is saved there"
  default:
    return nil
  }
}

/// The watcher, reachable from its own callback, and a chain of tasks that runs the reloads
/// one after another.
private final class WatcherBox: @unchecked Sendable {
  private let lock = NSLock()
  private var last: Task<Void, Never>?
  private var _watcher: FileWatcher?

  var watcher: FileWatcher? {
    get { lock.withLock { _watcher } }
    set { lock.withLock { _watcher = newValue } }
  }

  func serially(_ work: @escaping @Sendable () async -> Void) {
    lock.withLock {
      let previous = last
      last = Task {
        await previous?.value
        await work()
      }
    }
  }
}
