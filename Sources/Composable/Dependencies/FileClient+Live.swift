import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension FileClient {
  /// How many bytes a read of the live client takes by default: 16 MiB, a quarter of the
  /// default memory cap of a feature's Lua VM (64 MiB). What a read gives goes into that VM
  /// whole (as the `contents` of an action), beside the state and whatever the reducer makes of
  /// it, so a file at the limit must leave room (at the cap itself, a read that succeeded would
  /// fail the action it arrives in); a larger file could not be used, and reading it first would
  /// only cost the host as much memory. Writes are held to the same limit, so that nothing the
  /// client writes is refused when it is read back.
  public static let defaultReadLimit = 16 << 20

  /// Writes `contents` to `path` under `root` at once, as `live(root:)` writes (atomically,
  /// confined to the root), without a task: for code that cannot wait for one.
  public static func writeNow(
    _ path: DataPath, _ contents: [UInt8], under root: URL, readLimit: Int = defaultReadLimit
  ) throws {
    try LiveFiles(root: root, readLimit: readLimit).write(path, contents)
  }

  /// Reads `path` under `root` at once, as `live(root:)` reads (confined to the root, regular
  /// files only, never waiting, at most `readLimit` bytes), without a task.
  public static func readNow(
    _ path: DataPath, under root: URL, readLimit: Int = defaultReadLimit
  ) throws -> [UInt8] {
    try LiveFiles(root: root, readLimit: readLimit).read(path)
  }

  /// Files under `root`, for real. A symlink that leads outside `root` is refused (the
  /// `DataPath` itself cannot). Only regular files are read and written: a FIFO, a device or a
  /// socket is refused without being opened for IO, so nothing ever waits on one. A read takes
  /// at most `readLimit` bytes, and a write or append leaves no file larger. A write is atomic:
  /// the contents go to a temporary file beside the target, are flushed to disk, and the file
  /// is renamed over the target, so a crash leaves the old file or the new one, never half of
  /// one.
  ///
  /// `whileLocked` waits `lockWait` for another process's lock of a folder, then runs its body
  /// told it does not hold it.
  ///
  /// `reserving` names files at the top of `root` that are the host's, each with why, and
  /// `reservingNamesStartingWith` the starts of such names (`.composable-`): a write, an append
  /// or a removal that reaches one, by whatever path (a symlink in the folder too), fails saying
  /// "PATH: WHY".
  public static func live(
    root: URL, readLimit: Int = defaultReadLimit, lockWait: Duration = .seconds(10),
    reserving: [String: String] = [:], reservingNamesStartingWith: [String: String] = [:]
  ) -> FileClient {
    let files = LiveFiles(
      root: root, readLimit: readLimit, reserved: reserving,
      reservedStarts: reservingNamesStartingWith)
    var client = FileClient(
      read: { try files.read($0) },
      write: { try files.write($0, $1) },
      append: { try files.append($0, $1) },
      list: { try files.list($0) },
      remove: { try files.remove($0) },
      exists: { try files.exists($0) },
      whileLocked: { path, body in
        // Time for another run's save to end; past it the body runs unheld (it writes beside
        // the file, never into it: a stuck writer may still rename over it).
        let deadline = ContinuousClock.now + lockWait
        var held = try files.tryLock(path)
        while held == nil, ContinuousClock.now < deadline {
          try await Task.sleep(for: .milliseconds(5))
          held = try files.tryLock(path)
        }
        defer { if let held { LiveFiles.unlock(held) } }
        try await body(held != nil)
      })
    client.locate = { path, followingLast in files.location(of: path, followingLast: followingLast)
    }
    return client
  }

  /// Runs `body` holding the lock `live(root:)` takes for `path`, without a task: for code that
  /// cannot wait for one. After two seconds of another process holding it, `body` runs told it
  /// does not hold it (a save at a signal must not wait on a stuck writer: it writes beside the
  /// file).
  public static func whileLockedNow<T>(
    _ path: DataPath, under root: URL, _ body: (_ held: Bool) throws -> T
  ) throws -> T {
    let files = LiveFiles(root: root, readLimit: defaultReadLimit)
    let deadline = ContinuousClock.now + .seconds(2)
    var held = try files.tryLock(path)
    while held == nil, ContinuousClock.now < deadline {
      usleep(5_000)
      held = try files.tryLock(path)
    }
    defer { if let held { LiveFiles.unlock(held) } }
    return try body(held != nil)
  }
}
