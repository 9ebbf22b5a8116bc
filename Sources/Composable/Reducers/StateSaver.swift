import Foundation

/// When a kept state is written to its file, for Swift reducers (`persisted(to:...)`) and Lua
/// features alike.
///
/// A save comes `delay` after the first change not yet saved, and writes what the state is
/// then: a burst of changes is one write, and a steady stream of changes (a timer) is written
/// once per delay. A debounce that restarted at each change would never write under a steady
/// stream. A write under way is never cancelled by a newer change; the change schedules the next
/// write. A host about to exit writes what is still waiting with `savePending`.
///
/// Writes never overlap: one save writes at a time, and a save that comes while another writes
/// leaves the writing to it, which writes again once done. Two writes at once could finish in
/// either order, and the older state land last (with no delay, 6 saves in 100 did).
public final class StateSaver: @unchecked Sendable {
  /// The file, relative to the file client's root.
  public let path: DataPath

  private let lock = NSLock()
  // All under `lock`.
  private var changes = 0
  private var saved = 0
  private var scheduled = false
  private var contents: (@Sendable () throws -> [UInt8]?)?
  private var refusal: String?
  /// A write is under way; `writeAgain`: a save came meanwhile, and the writer writes once more.
  private var writing = false
  private var writeAgain = false

  /// `contents`, when given, is what a save writes until a `save(contents:...)` gives newer; it
  /// may answer nil, for a state not worth writing (a duplicate of what is on disk): that save
  /// writes nothing, and the changes it covers count as saved.
  ///
  /// ```swift
  /// let saver = StateSaver(path: "settings.json") { Array(#"{"theme":"dark"}"#.utf8) }
  /// ```
  public init(path: DataPath, contents: (@Sendable () throws -> [UInt8]?)? = nil) {
    self.path = path
    self.contents = contents
  }

  /// Makes every later save fail with `reason` instead of writing: for a file that was there at
  /// start but could not be read (too large, not a regular file, unreadable), which a save
  /// would replace, losing it.
  public func refuseSaves(because reason: String) { lock.withLock { refusal = reason } }

  /// Counts a change of the state: it is pending until a save that started after it is done.
  public func changed() { lock.withLock { changes += 1 } }

  /// Whether a change is not on disk yet.
  public var isPending: Bool { lock.withLock { changes > saved } }

  /// The save for the changes so far: an effect that waits `delay` on `clock`, then writes what
  /// `contents` gives (called then, so it may read the state as it is then), or `.none` when a
  /// save is already scheduled (it will call the `contents` given here, the newest). Without
  /// `contents`, the saver writes what it was made with.
  public func save<Action: Sendable>(
    contents: (@Sendable () throws -> [UInt8]?)? = nil, delay: Duration,
    clock: any Clock<Duration>, files: FileClient,
    onError: @escaping @Sendable (any Error) -> Void
  ) -> Effect<Action> {
    let schedule = lock.withLock { () -> Bool in
      if let contents { self.contents = contents }
      defer { scheduled = true }
      return !scheduled
    }
    guard schedule else { return .none }
    return .run { [self] _ in
      do {
        // No delay: no sleep either (a test clock would hold even a zero sleep until advanced).
        if delay > .zero { try await clock.sleep(for: delay) }
        try Task.checkCancellation()
      } catch {
        lock.withLock { scheduled = false }  // the change is still pending: the next one saves it
        return
      }
      lock.withLock { scheduled = false }
      do { try await write(files) } catch is CancellationError {} catch { onError(error) }
    }.named(Self.effectNamePrefix + path.description)
  }

  /// How a save names itself among a store's running effects (`the save of todos.saved.lua`).
  public static let effectNamePrefix = "the save of "

  /// Writes the state now if a change is not on disk yet (a save still waiting, say): for a
  /// host about to exit, on end of input or a signal.
  public func savePending(files: FileClient) async throws {
    // A write under way covers only what it read: wait for it, then write what is left.
    while lock.withLock({ writing }) { try await Task.sleep(for: .milliseconds(1)) }
    guard isPending else { return }
    try await write(files)
  }

  /// `savePending` without waiting on anything: `write(path, contents)` does the writing. For a
  /// signal handler, which must not wait for tasks (the threads that would run them may be the
  /// ones it stopped).
  public func savePending(write: (DataPath, [UInt8]) throws -> Void) throws {
    // A write under way (a save's effect, on another thread) covers only what it read, and
    // would land after this one, an older state last: waited for, but not past 2 s (a write
    // stuck on a full disk must not keep the process from ending).
    let deadline = ContinuousClock.now + .seconds(2)
    while lock.withLock({ writing }), ContinuousClock.now < deadline { usleep(1000) }
    guard isPending, let (count, contents) = try pendingContents() else { return }
    if let bytes = try contents() { try write(path, bytes) }
    lock.withLock { saved = max(saved, count) }
  }

  /// Writes the newest contents, unless a write is under way: that one then writes again when
  /// it is done, so the last write is always of the newest state.
  private func write(_ files: FileClient) async throws {
    let starts = lock.withLock { () -> Bool in
      let starts = !writing
      if writing { writeAgain = true }
      writing = true
      return starts
    }
    guard starts else { return }
    do {
      while true {
        if let (count, contents) = try pendingContents() {
          if let bytes = try contents() { try await files.write(path, bytes) }
          lock.withLock { saved = max(saved, count) }
        }
        // Checked and cleared with `writing` in one step: a save that comes after sees no
        // writer, and writes itself.
        let again = lock.withLock { () -> Bool in
          let again = writeAgain
          writeAgain = false
          writing = again
          return again
        }
        if !again { return }
      }
    } catch {
      lock.withLock {
        writing = false
        writeAgain = false
      }
      throw error
    }
  }

  /// The change count a write starting now covers, and what it writes; the refusal, if saves
  /// are refused.
  private func pendingContents() throws -> (Int, @Sendable () throws -> [UInt8]?)? {
    let refused: String? = lock.withLock { refusal }
    if let refused { throw StateSaverRefusal(path: path, reason: refused) }
    return lock.withLock { contents.map { (changes, $0) } }
  }
}

/// Why a save was not written: the file at `path` could not be read at start, and a save would
/// have replaced it.
public struct StateSaverRefusal: Error, CustomStringConvertible {
  /// The file that was not saved, relative to the file client's root.
  public let path: DataPath
  /// Why that file could not be loaded at start: what `refuseSaves(because:)` was given.
  public let reason: String

  public var description: String {
    "\(path) was not saved: the file there could not be loaded at start (\(reason)), and a save "
      + "would replace it. To fix, move it away (or make it readable) and start again"
  }
}

extension RunningEffectSummary {
  /// Whether the effect is a `StateSaver`'s save: a host that cancels effects (a REPL's jump in
  /// time) leaves saves to finish.
  public var isStateSave: Bool { kind?.hasPrefix(StateSaver.effectNamePrefix) ?? false }
}
