import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The temporary files a write left behind when its process was killed between making one and
/// renaming it over the file (`.NAME.PID.UUID.tmp`; `.NAME.UUID.tmp` before the process was
/// named in it): never read, never cleaned, one more at every kill. A write removes those of its
/// file whose process is gone, once a process for each file.
extension LiveFiles {
  /// The name of a write's temporary file for `name`: the writing process in it, so that a
  /// later write can tell one left by a process that is gone from one being written now.
  static func temporaryName(for name: String) -> String {
    ".\(name).\(getpid()).\(UUID().uuidString).tmp"
  }

  /// A leftover is at least this old (by its last change), so that a write under way in a
  /// process this one cannot see (another PID namespace) is not taken for one.
  static let leftoverAge: TimeInterval = 60

  /// The files in `directory` (`(device, inode)` and name) whose leftovers were looked for.
  private static let lookedFor = Mutex<Set<String>>([])

  /// Removes the leftovers of writes to `name` in `directory` whose process is gone, the first
  /// time this process writes there. Failures are ignored: a leftover is clutter, not state.
  func removeLeftovers(of name: String, in directory: Int32) {
    var status = stat()
    guard fstat(directory, &status) == 0 else { return }
    let key = "\(status.st_dev):\(status.st_ino)/\(name)"
    guard Self.lookedFor.withLock({ $0.insert(key).inserted }) else { return }
    let listing = openat(directory, ".", Self.directoryFlags)
    guard listing >= 0, let stream = fdopendir(listing) else {
      if listing >= 0 { close(listing) }
      return
    }
    defer { closedir(stream) }
    let prefix = ".\(name)."
    var leftovers: [String] = []
    while let entry = readdir(stream) {
      let entryName = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
      }
      guard entryName.hasPrefix(prefix), entryName.hasSuffix(".tmp"),
        Self.isLeftover(entryName.dropFirst(prefix.count).dropLast(4))
      else { continue }
      leftovers.append(entryName)
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

  /// Whether the middle of a temporary file's name (`PID.UUID`, or `UUID` alone) is one a
  /// process that is gone left: its PID names no process (`kill(pid, 0)` finds none), or there
  /// is no PID (a name from before they were written, by a process long gone).
  static func isLeftover(_ middle: Substring) -> Bool {
    let parts = middle.split(separator: ".", omittingEmptySubsequences: false)
    switch parts.count {
    case 1:
      return UUID(uuidString: String(parts[0])) != nil
    case 2:
      guard UUID(uuidString: String(parts[1])) != nil, let pid = pid_t(parts[0]), pid > 0 else {
        return false
      }
      return kill(pid, 0) != 0 && errno == ESRCH
    default:
      return false
    }
  }
}
