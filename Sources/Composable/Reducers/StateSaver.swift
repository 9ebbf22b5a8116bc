import Foundation
import Synchronization

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
///
/// A save never replaces a file someone else wrote. Told what the file held when the state was
/// loaded (`knowsFile`), a save first reads it: changed since (a second run of the same feature
/// on the same folder, a hand edit, a file that cannot be read now), it is left as it is, and
/// this saver's state goes beside it (`NAME.conflict-STAMP-PID`, a name no other process
/// takes), now and at every later save, with an error that says where (`StateSaverConflict`).
/// Two runs on one folder lost the first one's changes to the last one to exit. The read and
/// the write are made holding the file's lock (`FileClient.whileLocked`, `flock` on its folder
/// for the live client), which every saver takes: two runs saving at once were both seeing the
/// old file, and the last rename won. (A hand edit takes no lock: one made between the read and
/// the rename is not seen.)
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
  /// What the file held when this saver last knew it (loaded or written it): nil when it never
  /// was told, then no save checks the file before it writes.
  private var onDisk: FileFingerprint?
  /// Where the saves go once the file was found changed by another writer.
  private var aside: DataPath?
  /// A write is under way; `writeAgain`: a save came meanwhile, and the writer writes once more.
  private var writing = false
  private var writeAgain = false
  /// How many synchronous saves (`savePending(write:read:locked:)`, a signal's) began: a write
  /// of an effect that began before one does not land after it (below).
  private var synchronousSaves = 0

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

  /// What the file held when the state was loaded from it (nil: it was not there): a later
  /// save that finds it otherwise leaves it, and writes beside it.
  public func knowsFile(_ bytes: [UInt8]?) {
    lock.withLock { onDisk = FileFingerprint(bytes) }
  }

  /// Where the saves go since a save found the file changed by another writer (beside it); nil
  /// while they go to the file.
  public var asidePath: DataPath? { lock.withLock { aside } }

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
  /// `read(path)` gives what the file holds (nil when it is not there), to see whether another
  /// writer changed it; `locked(path, body)` runs the read and the write holding the file's lock
  /// (`FileClient.whileLockedNow`), telling `body` whether it got it.
  public func savePending(
    write: (DataPath, [UInt8]) throws -> Void, read: (DataPath) throws -> [UInt8]?,
    locked: (DataPath, (_ held: Bool) throws -> Void) throws -> Void = { _, body in
      try body(true)
    }
  ) throws {
    // A write under way (a save's effect, on another thread) covers only what it read, and
    // would land after this one, an older state last: waited for, but not past 2 s (a write
    // stuck on a full disk must not keep the process from ending). One still under way then (a
    // large state still being made into a file) writes nothing once this one began: it
    // checks, holding the file's lock, that no synchronous save began since it did (it landed
    // after the signal's save, and a run said it saved a state its file did not hold).
    lock.withLock { synchronousSaves += 1 }
    let deadline = ContinuousClock.now + .seconds(2)
    while lock.withLock({ writing }), ContinuousClock.now < deadline { usleep(1000) }
    guard isPending, let (count, contents) = try pendingContents() else { return }
    var conflict: StateSaverConflict?
    if let bytes = try contents() {
      try withoutActuallyEscaping(write) { write in
        try withoutActuallyEscaping(read) { read in
          try locked(path) { held in
            let target = try target(read: read, exists: { try read($0) != nil }, held: held)
            try write(target.path, bytes)
            conflict = wrote(bytes, to: target)
          }
        }
      }
    }
    lock.withLock { saved = max(saved, count) }
    if let conflict { throw conflict }
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
        let began = lock.withLock { synchronousSaves }
        if let (count, contents) = try pendingContents() {
          let conflict = Mutex<StateSaverConflict?>(nil)
          let passed = Mutex(false)
          if let bytes = try contents() {
            try await files.whileLocked(path) { [self] held in
              // A synchronous save began since: it writes a state as new as this one, or is
              // written already, and this older one must not land after it. Its changes are
              // then not saved by this write: the synchronous save finds them pending (counted
              // saved, they were written by neither, and the file was left empty).
              guard lock.withLock({ synchronousSaves }) == began else {
                passed.withLock { $0 = true }
                return
              }
              let target = try await target(files, held: held)
              try await files.write(target.path, bytes)
              conflict.withLock { $0 = wrote(bytes, to: target) }
            }
          }
          if !passed.withLock({ $0 }) { lock.withLock { saved = max(saved, count) } }
          if let conflict = conflict.withLock({ $0 }) { throw conflict }
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

  /// Where a write goes, with `files`: `target(read:exists:)` over the client.
  /// Without the lock (`held` false: another process stuck holding it), the file is as good as
  /// changed: a writer stuck between its read and its rename would rename over this write.
  private func target(_ files: FileClient, held: Bool) async throws -> Target {
    guard lock.withLock({ aside == nil && onDisk != nil }) else { return try target(nil, nil) }
    // A file that cannot be read now (too large, a directory, a FIFO) is not the one known.
    let now: FileFingerprint
    if !held {
      now = .unreadable
    } else {
      do {
        now = FileFingerprint(try await files.read(path))
      } catch  where error.isFileNotFound {
        now = FileFingerprint(nil)
      } catch {
        now = .unreadable
      }
    }
    // A name beside the file is looked for only when the saves are to go there.
    guard lock.withLock({ onDisk != now }) else { return try target(now, nil) }
    var candidate = try Self.asideName(for: path, attempt: 1)
    var attempt = 1
    while try await files.exists(candidate) {
      attempt += 1
      candidate = try Self.asideName(for: path, attempt: attempt)
    }
    return try target(now, candidate)
  }

  /// Where a write goes, reading and looking for names through the closures given.
  private func target(
    read: (DataPath) throws -> [UInt8]?, exists: (DataPath) throws -> Bool, held: Bool
  ) throws -> Target {
    guard lock.withLock({ aside == nil && onDisk != nil }) else { return try target(nil, nil) }
    let now: FileFingerprint
    if !held {
      now = .unreadable
    } else {
      do { now = FileFingerprint(try read(path)) } catch { now = .unreadable }
    }
    guard lock.withLock({ onDisk != now }) else { return try target(now, nil) }
    var attempt = 1
    var candidate = try Self.asideName(for: path, attempt: attempt)
    while try exists(candidate) {
      attempt += 1
      candidate = try Self.asideName(for: path, attempt: attempt)
    }
    return try target(now, candidate)
  }

  /// The file, or the name beside it once (or now) another writer changed it: `now` is what
  /// the file holds, `free` a name beside it no file has.
  private func target(_ now: FileFingerprint?, _ free: DataPath?) throws -> Target {
    lock.withLock {
      if let aside { return Target(path: aside, isNewlyAside: false) }
      guard let known = onDisk, let now, let free, now != known else {
        return Target(path: path, isNewlyAside: false)
      }
      aside = free
      return Target(path: free, isNewlyAside: true, appeared: known == FileFingerprint(nil))
    }
  }

  /// Notes `bytes` written to `target`: the file's contents when it is the file; the conflict
  /// to report when the saves just went aside.
  private func wrote(_ bytes: [UInt8], to target: Target) -> StateSaverConflict? {
    lock.withLock {
      if target.path == path { onDisk = FileFingerprint(bytes) }
    }
    return target.isNewlyAside
      ? StateSaverConflict(path: path, aside: target.path, appeared: target.appeared) : nil
  }

  /// `NAME.conflict-STAMP-PID`, then `...-2`, ...: the second and the process, so that no two
  /// runs choose one name (8 runs in one second shared one, and 7 states were lost).
  private static func asideName(for path: DataPath, attempt: Int) throws -> DataPath {
    let stamp = Int(Date().timeIntervalSince1970)
    return try path.appendingToName(
      ".conflict-\(stamp)-\(getpid())" + (attempt > 1 ? "-\(attempt)" : ""))
  }

  /// Where a write goes, and whether it is the first to go aside.
  private struct Target {
    let path: DataPath
    let isNewlyAside: Bool
    /// Gone aside because a file is where none was known (see `StateSaverConflict.appeared`).
    var appeared = false
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

/// A save that found its file changed by another writer since the state was loaded (a second
/// run of the same feature on the same folder, a hand edit): that file is left as it is, and the
/// state was written beside it, at `aside`, where the later saves go too.
public struct StateSaverConflict: Error, CustomStringConvertible {
  /// The file another writer changed, relative to the file client's root.
  public let path: DataPath
  /// Where the state was written instead.
  public let aside: DataPath
  /// Whether no file was there when the saves began (nothing was loaded from it: the run
  /// started without one, or a reload's `persist` named it) and one is now.
  public var appeared = false

  public var description: String {
    let what =
      appeared
      ? "\(path) holds a file this run did not write (a second run on the same data directory, "
        + "an edit, or a file there before a reload's persist named it; none was there when "
        + "the saves began)"
      : "\(path) was changed by another writer (a second run on the same data directory, or an "
        + "edit) since the state was loaded from it"
    return what + ", so it is left as it is: the state is in \(aside), where its later saves go "
      + "too. To fix, keep the one you want as \(path), and run one at a time on a data directory"
  }
}

/// What a file held, for telling whether it changed: absent, or its bytes' length and FNV-1a
/// hash (a state's file is not kept twice in memory to compare it).
struct FileFingerprint: Equatable {
  let length: Int
  let hash: UInt64

  /// A file that is there but could not be read: like no file known.
  static let unreadable = FileFingerprint(length: -2, hash: 0)

  private init(length: Int, hash: UInt64) { (self.length, self.hash) = (length, hash) }

  /// The fingerprint of `bytes`; of a file that is not there when nil.
  init(_ bytes: [UInt8]?) {
    guard let bytes else {
      (length, hash) = (-1, 0)
      return
    }
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    (length, self.hash) = (bytes.count, hash)
  }
}

extension RunningEffectSummary {
  /// Whether the effect is a `StateSaver`'s save: a host that cancels effects (a REPL's jump in
  /// time) leaves saves to finish.
  public var isStateSave: Bool { kind?.hasPrefix(StateSaver.effectNamePrefix) ?? false }
}
