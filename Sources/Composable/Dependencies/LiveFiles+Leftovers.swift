import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The temporary files a write left behind when its process was killed between making one and
/// renaming it over the file (`.NAME.PID.UUID.tmp`; `.NAME.UUID.tmp` before the process was
/// named in it): never read, never cleaned, one more at every kill. The first write of a process
/// into a folder removes the leftovers there whose process is gone.
extension LiveFiles {
  /// The name of a write's temporary file for `name`: the writing process in it, so that a
  /// later write can tell one left by a process that is gone from one being written now.
  static func temporaryName(for name: String) -> String {
    ".\(name).\(getpid()).\(UUID().uuidString).tmp"
  }

  /// A leftover is at least this old (by its last change), so that a write under way in a
  /// process this one cannot see (another PID namespace) is not taken for one.
  static let leftoverAge: TimeInterval = 60

  /// The folders (by path) whose leftovers were looked for: once a process, a folder (a look
  /// for each file written read a folder of 20,000 files at each new name). By path, not by
  /// device and inode: a folder removed and made again reuses inodes, and was passed over.
  private static let lookedFor = Mutex<Set<String>>([])

  /// Removes the leftovers in `directory` (the folder of `path`) whose process is gone, the
  /// first time this process writes there. Failures are ignored: a leftover is clutter, not
  /// state.
  func removeLeftovers(in directory: Int32, of path: DataPath) {
    let folder = ([root.path] + path.components.dropLast()).joined(separator: "/")
    guard Self.lookedFor.withLock({ $0.insert(folder).inserted }) else { return }
    let listing = openat(directory, ".", Self.directoryFlags)
    guard listing >= 0, let stream = fdopendir(listing) else {
      if listing >= 0 { close(listing) }
      return
    }
    defer { closedir(stream) }
    var leftovers: [String] = []
    while let entry = readdir(stream) {
      let name = Self.name(of: entry)
      if Self.isLeftover(name) { leftovers.append(name) }
    }
    let now = Date().timeIntervalSince1970
    for leftover in leftovers {
      var file = stat()
      guard fstatat(directory, leftover, &file, AT_SYMLINK_NOFOLLOW) == 0,
        file.st_mode & S_IFMT == S_IFREG,
        now - TimeInterval(file.st_mtim.tv_sec) >= Self.leftoverAge
      else { continue }
      unlinkat(directory, leftover, 0)
    }
  }

  /// Whether `name` is a write's temporary file a process that is gone left: `.NAME.PID.UUID.tmp`
  /// whose PID names no process (`kill(pid, 0)` finds none), or `.NAME.UUID.tmp`, named before
  /// the process was (by a process long gone).
  static func isLeftover(_ name: String) -> Bool {
    guard let writer = temporaryWriter(name) else { return false }
    guard let pid = writer else { return true }  // the old name: NAME.UUID
    return pid > 0 && kill(pid, 0) != 0 && errno == ESRCH
  }

  /// Whether `name` has the form of a write's temporary file (`.NAME.PID.UUID.tmp`, or the
  /// older `.NAME.UUID.tmp`), whichever process made it. A write or an append of a file with
  /// such a name is refused: the client removes them once their process is gone, so a file a
  /// caller kept under one would be lost.
  static func isTemporaryName(_ name: String) -> Bool { temporaryWriter(name) != nil }

  /// For a name of a write's temporary file, the process its name gives (nil inside: the old
  /// form, which gives none); nil for any other name.
  private static func temporaryWriter(_ name: String) -> pid_t?? {
    // By bytes, as the kernel names files: a combining mark after a `.` made it another
    // character, and a temporary file of a name that starts with one was never known as one.
    let bytes = Array(name.utf8)
    let dot = UInt8(ascii: ".")
    guard bytes.first == dot, name.hasByteSuffix(".tmp"), bytes.count > 5 else { return nil }
    let parts = bytes[1..<(bytes.count - 4)].split(separator: dot, omittingEmptySubsequences: false)
    guard parts.count >= 2, let last = parts.last,
      UUID(uuidString: String(decoding: last, as: UTF8.self)) != nil
    else {
      return nil
    }
    let before = parts[parts.count - 2]
    guard parts.count >= 3, !before.isEmpty,
      before.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
      let pid = pid_t(String(decoding: before, as: UTF8.self))
    else {
      // The old form, NAME.UUID: a name before the UUID.
      return parts.count == 2 && parts[0].isEmpty ? nil : .some(nil)
    }
    return .some(pid)
  }

  /// The error for a write or an append of a file whose name has a temporary file's form.
  static func temporaryNameRefused(_ path: DataPath) -> FileClientError {
    FileClientError(
      "\(path): a name of this form (.NAME.PID.UUID.tmp) is kept for a write's temporary file, "
        + "removed once the process that wrote it is gone; give the file another name")
  }
}
