import Foundation
import Glibc

import Composable

/// Tells when files were saved, through inotify (no polling): one call of `onSave` per save,
/// however the editor saves.
///
/// Editors save in three ways, and each ends the same way here:
/// - in place (`IN_CLOSE_WRITE` after some `IN_MODIFY`);
/// - a temporary file renamed over the file (`IN_MOVED_TO` of its name);
/// - the file deleted and written anew (`IN_DELETE`, then `IN_CREATE`, then `IN_CLOSE_WRITE`).
///
/// The directories holding the files are watched, not the files: a watch on a file is lost
/// when a rename or a delete replaces it. The events of one save come in a burst, and a save
/// is reported once the burst has been quiet for `quiet` (10 ms by default).
///
/// A file reached through symlinks is watched where it really is, and so is each link on the
/// way (a folder's too): one re-pointed (`ln -sfn`), removed or made is a save of the file, as
/// a read of its path gets other contents. Saves are reported as the paths given.
///
/// A watched folder deleted or moved away (a `git checkout`, a tool that writes a folder anew)
/// is looked for again every 100 ms until it is back; its watched files that are there then
/// count as saved, since they may have been written before the watch was. A folder above it
/// moved away sends no event of the watched folder's: once a second, each watched path is
/// checked to still name the folder watched.
///
/// The watcher runs on a thread of its own, which `stop()` (or deinit) ends; its descriptors
/// are closed then.
public final class FileWatcher: Sendable {
  private let inotify: Int32
  /// A pipe the thread polls beside inotify: `stop()` writes to it to wake the thread.
  private let wake: Int32
  private let wakeWriter: Int32
  /// What is watched, shared with the thread (which holds it, never the watcher, so that the
  /// watcher can go away and stop the thread in its deinit).
  private let watched = Watched()
  private let finished = DispatchSemaphore(value: 0)

  /// Watches `files` (absolute paths); `onSave(paths)` is called on the watcher's thread with
  /// the watched files saved in one burst.
  ///
  /// ```swift
  /// let file = URL(fileURLWithPath: "/work/features/counter.lua")
  /// let watcher = try FileWatcher(files: [file]) { saved in
  ///   print("saved: \(saved.joined(separator: ", "))")
  /// }
  /// defer { watcher.stop() }
  /// ```
  public init(
    files: [URL], quiet: Duration = .milliseconds(10),
    onSave: @escaping @Sendable ([String]) -> Void
  ) throws {
    inotify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
    guard inotify >= 0 else { throw FileWatcherError("inotify_init1 failed: errno \(errno)") }
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else {
      close(inotify)
      throw FileWatcherError("pipe failed: errno \(errno)")
    }
    wake = ends[0]
    wakeWriter = ends[1]
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    do {
      try watch(files, awaitingMissing: false)
    } catch {
      // No thread was started: the deinit that runs now must not wait for one.
      let unstarted = self.watched
      unstarted.lock.withLock { unstarted.stopped = true }
      throw error
    }
    let (inotify, wake, watched, finished) = (self.inotify, self.wake, self.watched, self.finished)
    let thread = Thread {
      Thread.current.threadDictionary[Self.threadKey] = ObjectIdentifier(watched)
      Self.run(inotify: inotify, wake: wake, quiet: quiet, watched: watched, onSave: onSave)
      finished.signal()
    }
    thread.name = "composable.watcher"
    thread.start()
  }

  deinit {
    stop()
    close(inotify)
    close(wake)
    close(wakeWriter)
  }

  /// Watches these files from now on, instead of the ones before (a reload may require other
  /// modules). A folder that does not exist is looked for until it is made, as a watched folder
  /// deleted is; one that cannot be watched otherwise is an error, and the files watched before
  /// stay so.
  public func watch(_ files: [URL]) throws {
    try watch(files, awaitingMissing: true)
  }

  /// `watch`: a folder on a file's route that does not exist (a link re-pointed to a release
  /// not made yet) is looked for until it does when `awaitingMissing`, and an error else.
  private func watch(_ files: [URL], awaitingMissing: Bool) throws {
    // A file reached through a symlink is saved where it really is, and a link on the way
    // re-pointed gives it other contents: each is watched, and reported as the path given.
    var routes: [String: SymlinkRoute] = [:]
    for file in files {
      let given = Self.absolutePath(of: file)
      // inotify takes a path whole: past the system's limit the route could not be followed,
      // and only `/` was watched, every save passed over unsaid (an attacker's finding).
      guard given.utf8.count < Int(PATH_MAX) else {
        throw FileWatcherError(
          "cannot watch \(file.lastPathComponent): its path is \(given.utf8.count) bytes, more "
            + "than the \(Int(PATH_MAX) - 1) the system takes. To fix, run it from a folder "
            + "nearer the root")
      }
      routes[given] = SymlinkRoute(to: given)
    }
    let wanted = Set(routes.values.flatMap(\.paths).map(Self.folder(of:)))
    try watched.lock.withLock {
      // The folders first: when one cannot be watched, the files watched before stay so.
      let awaited = try Self.watchFolders(
        wanted, inotify: inotify, watched: watched, awaitingMissing: awaitingMissing)
      watched.routes = routes
      Self.settle(watched, inotify: inotify, awaited: awaited)
    }
  }

  /// After the routes changed (under the lock): the paths watched and the links among them made
  /// again from them, the folders no route is in any more left (each release a link led to
  /// stayed watched, 3,000 after 3,000 re-pointings, an attacker's finding), and `awaited` added
  /// to those looked for.
  private static func settle(_ watched: Watched, inotify: Int32, awaited: Set<String>) {
    var files: [String: [String]] = [:]
    var links: Set<String> = []
    for (given, route) in watched.routes.sorted(by: { $0.key < $1.key }) {
      for path in route.paths where files[path]?.contains(given) != true {
        files[path, default: []].append(given)
      }
      links.formUnion(route.links)
    }
    watched.files = files
    watched.links = links
    let wanted = Set(files.keys.map(folder(of:)))
    for (descriptor, directory) in watched.directories where !wanted.contains(directory) {
      inotify_rm_watch(inotify, descriptor)
      watched.directories.removeValue(forKey: descriptor)
      watched.identities.removeValue(forKey: descriptor)
    }
    watched.missing = watched.missing.intersection(wanted).union(awaited)
      .subtracting(watched.directories.values)
  }

  /// The path of `file` from `/`. Under a current folder whose path is longer than the system's
  /// limit, Foundation keeps a relative one relative (`f.lua`), and `/` was watched for it: made
  /// from the current folder as `getcwd` gives it.
  private static func absolutePath(of file: URL) -> String {
    let path = file.absoluteURL.path
    guard !path.hasPrefix("/"), let current = getcwd(nil, 0) else { return path }
    defer { free(current) }
    return String(cString: current) + "/" + path
  }

  private static func folder(of path: String) -> String {
    (path as NSString).deletingLastPathComponent
  }

  /// Watches each of `folders` not watched yet (under the lock); returns those that do not
  /// exist when `awaitingMissing` (to be looked for), and throws for any other that cannot be.
  private static func watchFolders(
    _ folders: Set<String>, inotify: Int32, watched: Watched, awaitingMissing: Bool
  ) throws -> Set<String> {
    var awaited: Set<String> = []
    for directory in folders where !watched.directories.values.contains(directory) {
      let descriptor = addWatch(inotify, directory)
      guard descriptor >= 0 else {
        if awaitingMissing, errno == ENOENT || errno == ENOTDIR {
          awaited.insert(directory)
          continue
        }
        throw FileWatcherError("cannot watch \(directory): errno \(errno)")
      }
      watched.directories[descriptor] = directory
      watched.identities[descriptor] = identity(of: directory)
    }
    return awaited
  }

  /// Watches where the links on the routes of `given` lead now, instead of where they led: run
  /// on the watcher's thread as soon as a link's event is read, so that a save of the new file
  /// made just after it is seen.
  private static func follow(_ given: Set<String>, inotify: Int32, watched: Watched) {
    let routes = given.map { ($0, SymlinkRoute(to: $0)) }
    watched.lock.withLock {
      for (given, route) in routes { watched.routes[given] = route }
      let wanted = Set(routes.flatMap(\.1.paths).map(folder(of:)))
      let awaited =
        (try? watchFolders(wanted, inotify: inotify, watched: watched, awaitingMissing: true))
        ?? []
      settle(watched, inotify: inotify, awaited: awaited)
    }
  }

  /// Ends the thread; waits for it.
  public func stop() {
    let first = watched.lock.withLock { () -> Bool in
      defer { watched.stopped = true }
      return !watched.stopped
    }
    guard first else { return }
    var one: UInt8 = 1
    _ = write(wakeWriter, &one, 1)
    // Called from `onSave` (or a deinit there), on the watcher's own thread: it ends once the
    // callback returns; waiting for it here would wait forever.
    if Thread.current.threadDictionary[Self.threadKey] as? ObjectIdentifier
      == ObjectIdentifier(watched)
    {
      return
    }
    finished.wait()
  }

  /// The key under which the watcher's thread notes whose it is.
  private static let threadKey = "composable.watcher.owner"

  /// How often a watched folder that went away is looked for.
  static let retryMilliseconds: Int32 = 100

  /// Watches `directory` for the events of a save, and for its own deletion or move.
  private static func addWatch(_ inotify: Int32, _ directory: String) -> Int32 {
    let mask =
      IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_MODIFY | IN_DELETE_SELF
      | IN_MOVE_SELF
    return inotify_add_watch(inotify, directory, UInt32(mask))
  }

  /// The device and inode of the folder at `path`; nil when there is none.
  private static func identity(of path: String) -> Watched.Identity? {
    var status = stat()
    guard stat(path, &status) == 0 else { return nil }
    return Watched.Identity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
  }

  /// How often the watched folders' paths are checked to still name the folders watched.
  static let identityCheckMilliseconds: Int32 = 1000

  /// Each watched folder whose path no longer names it (a folder above it moved away, another
  /// put in its place: a watch follows the folder, and no event of its own says so) stops being
  /// watched and goes to `missing`, to be watched again where its path leads.
  private static func dropMoved(inotify: Int32, watched: Watched) {
    watched.lock.withLock {
      for (descriptor, directory) in watched.directories {
        let now = identity(of: directory)
        guard now == nil || now != watched.identities[descriptor] else { continue }
        inotify_rm_watch(inotify, descriptor)
        watched.directories.removeValue(forKey: descriptor)
        watched.identities.removeValue(forKey: descriptor)
        watched.missing.insert(directory)
      }
    }
  }

  /// Watches again each folder that went away and is back; returns the watched files in them.
  private static func rewatch(inotify: Int32, watched: Watched) -> [String] {
    watched.lock.withLock {
      var back: [String] = []
      for directory in watched.missing {
        let descriptor = addWatch(inotify, directory)
        guard descriptor >= 0 else { continue }
        watched.missing.remove(directory)
        watched.directories[descriptor] = directory
        watched.identities[descriptor] = identity(of: directory)
        for (path, given) in watched.files
        where (path as NSString).deletingLastPathComponent == directory && access(path, F_OK) == 0 {
          back += given
        }
      }
      return back
    }
  }

  private static func run(
    inotify: Int32, wake: Int32, quiet: Duration, watched: Watched,
    onSave: @Sendable ([String]) -> Void
  ) {
    var saved: Set<String> = []
    // Watched files deleted or made anew, by when they are looked at (`settleMilliseconds`).
    var unsettled: [String: ContinuousClock.Instant] = [:]
    // While a burst is open: how long to wait for more of it.
    // At most a day (poll's timeout is an Int32 of milliseconds): a larger one cannot trap.
    let seconds = min(max(quiet.components.seconds, 0), 86_400)
    let quietMilliseconds = Int32(
      max(1, seconds * 1000 + max(quiet.components.attoseconds, 0) / 1_000_000_000_000_000))
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    var lastIdentityCheck = ContinuousClock.now
    while true {
      var descriptors = [
        pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
        pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
      ]
      let missing = watched.lock.withLock { !watched.missing.isEmpty }
      var timeout: Int32 = saved.isEmpty ? identityCheckMilliseconds : quietMilliseconds
      if missing { timeout = min(timeout, retryMilliseconds) }
      if let first = unsettled.values.min() {
        let left = Seconds.of(first - ContinuousClock.now) * 1000
        timeout = min(timeout, Int32(max(1, min(left.rounded(.up), 86_400_000))))
      }
      let ready = poll(&descriptors, 2, timeout)
      if ready < 0 {
        if errno == EINTR { continue }
        return
      }
      if descriptors[1].revents != 0 { return }
      if ContinuousClock.now - lastIdentityCheck >= .milliseconds(identityCheckMilliseconds) {
        lastIdentityCheck = ContinuousClock.now
        dropMoved(inotify: inotify, watched: watched)
      }
      if missing {
        // What is back is saved once the events that follow have been quiet for `quiet`.
        let back = rewatch(inotify: inotify, watched: watched)
        if !back.isEmpty {
          saved.formUnion(back)
          continue
        }
      }
      // A file deleted or replaced that no save followed: reported if it is no file now.
      let now = ContinuousClock.now
      for (path, deadline) in unsettled where deadline <= now {
        unsettled.removeValue(forKey: path)
        if !isRegularFile(path) { saved.insert(path) }
      }
      if ready == 0 {
        guard !saved.isEmpty else { continue }
        // The burst is over: one save.
        onSave(saved.sorted())
        saved = []
        continue
      }
      let count = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
      guard count > 0 else { continue }
      let events = changedFiles(in: buffer, count: count, inotify: inotify, watched: watched)
      if !events.rerouted.isEmpty { follow(events.rerouted, inotify: inotify, watched: watched) }
      saved.formUnion(events.saved)
      for path in events.saved { unsettled.removeValue(forKey: path) }
      let deadline = ContinuousClock.now + .milliseconds(settleMilliseconds)
      for path in events.unsettled where !events.saved.contains(path) {
        unsettled[path] = deadline
      }
    }
  }

  /// The watched files a batch of events finishes writing, and those it deleted, moved away or
  /// made anew (not yet written: `unsettled`). A folder gone (deleted, or moved:
  /// its watch would follow it elsewhere) is no longer watched and goes to `missing`.
  private static func changedFiles(
    in buffer: [UInt8], count: Int, inotify: Int32, watched: Watched
  ) -> (saved: [String], unsettled: [String], rerouted: Set<String>) {
    let (files, links, directories) = watched.lock.withLock {
      (watched.files, watched.links, watched.directories)
    }
    var changed: [String] = []
    var unsettled: [String] = []
    var rerouted: Set<String> = []
    var offset = 0
    let header = MemoryLayout<inotify_event>.size
    buffer.withUnsafeBytes { bytes in
      while offset + header <= count {
        let descriptor = bytes.load(fromByteOffset: offset, as: Int32.self)
        let mask = bytes.load(fromByteOffset: offset + 4, as: UInt32.self)
        let length = Int(bytes.load(fromByteOffset: offset + 12, as: UInt32.self))
        let nameBytes = bytes[(offset + header)..<min(count, offset + header + length)]
        let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
        offset += header + length
        if mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) != 0 {
          watched.lock.withLock {
            guard let directory = watched.directories.removeValue(forKey: descriptor) else {
              return
            }
            watched.identities.removeValue(forKey: descriptor)
            if mask & UInt32(IN_IGNORED) == 0 { inotify_rm_watch(inotify, descriptor) }
            watched.missing.insert(directory)
          }
          continue
        }
        guard let directory = directories[descriptor] else { continue }
        let path = directory + "/" + name
        guard let given = files[path] else { continue }
        // A link on the way to a watched file is made whole, and removed or replaced (by
        // another link, a folder, a file) at once: any event of it changes the route, a save.
        // A save of a file ends with the file closed after writing, or renamed into place. A
        // file deleted, moved away or made (a FIFO, a folder, a link) may be a save under way:
        // looked at once it settles (`unsettled`).
        if links.contains(path) {
          changed += given
          rerouted.formUnion(given)
        } else if mask & UInt32(IN_CLOSE_WRITE | IN_MOVED_TO) != 0 {
          changed += given
        } else if mask & UInt32(IN_DELETE | IN_MOVED_FROM | IN_CREATE) != 0 {
          unsettled += given
        }
      }
    }
    return (changed, unsettled, rerouted)
  }

  /// How long a watched file deleted or replaced by something else is given to become a saved
  /// file again (an editor that deletes and writes anew) before it is reported as changed, so
  /// that the reload says what is there now: nothing, a FIFO, a folder.
  static let settleMilliseconds = 300

  /// Whether `path` names a regular file (through links, as a read would open it).
  static func isRegularFile(_ path: String) -> Bool {
    var status = stat()
    return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
  }
}

/// The files and directories watched, and whether the watcher stopped: all under `lock`.
private final class Watched: @unchecked Sendable {
  let lock = NSLock()
  /// The route of each path given (`SymlinkRoute`), whose paths are watched.
  var routes: [String: SymlinkRoute] = [:]
  /// Each path on a route (a file, or a link on the way to one), and the paths given whose
  /// routes it is on, which its saves report (made from `routes`).
  var files: [String: [String]] = [:]
  /// Those of `files` that are links on a route (or were, when it was made).
  var links: Set<String> = []
  var directories: [Int32: String] = [:]
  /// The folder each watch was made on, to tell when its path names another (`dropMoved`).
  var identities: [Int32: Identity] = [:]
  struct Identity: Equatable {
    let device: UInt64
    let inode: UInt64
  }
  /// Folders of watched files that went away, looked for again (`FileWatcher.rewatch`).
  var missing: Set<String> = []
  var stopped = false
}

/// Why a `FileWatcher` could not start or could not watch a folder: the call that failed and
/// its `errno`.
public struct FileWatcherError: Error, CustomStringConvertible {
  public let description: String
  init(_ description: String) { self.description = description }
}
