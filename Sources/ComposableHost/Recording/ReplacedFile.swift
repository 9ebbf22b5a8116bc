import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A file written whole, where a reader never sees half of it: into a new file beside it, then
/// renamed over it. The new file has the permission bits of the one it replaces from the
/// moment it is made (a private session stayed world-readable while it was written, then was
/// changed by its path, which a link swapped in would have taken), or the umask's for a new
/// one. Its owner is whoever writes it, as for any file made anew; the set-user-ID, set-group-ID
/// and sticky bits are not carried over to a file someone else may now own.
public enum ReplacedFile {
  /// The temporary files of the writes under way, for `removeUnfinished`.
  private static let unfinished = Mutex<Set<String>>([])

  /// Removes the temporary files of the writes under way: the process is ending (a signal) and
  /// they would be left beside the files they were to replace, which stay as they were.
  public static func removeUnfinished() { removeUnfinished(where: { _ in true }) }

  /// Removes those of the writes under way whose temporary file's path `isRemoved` (a test
  /// removes its own, beside other tests' writes).
  static func removeUnfinished(where isRemoved: (String) -> Bool) {
    unfinished.withLock { paths in
      for path in paths where isRemoved(path) {
        unlink(path)
        paths.remove(path)
      }
    }
  }

  /// Called once a write's temporary file is written, before it takes the place of the file
  /// (by its path): for tests, to end the process there as a signal would.
  static let beforeRename = Mutex<[String: @Sendable () -> Void]>([:])

  /// Writes `bytes` at `url`, replacing what is there (`replacing`), or only where nothing is
  /// (else it fails with EEXIST, and what is there stays); throws an error naming the file and
  /// the system's reason.
  static func write(_ bytes: [UInt8], to url: URL, replacing: Bool = true) throws {
    let path = url.path
    var status = stat()
    let replaced = lstat(path, &status) == 0 ? status.st_mode & 0o777 : nil
    let temporary =
      url.deletingLastPathComponent().appendingPathComponent(
        ".\(url.lastPathComponent).\(getpid()).\(UUID().uuidString).tmp"
      ).path
    // Listed before it is made, and taken off under the same lock once it is renamed or
    // removed: an ending signal removes it before the rename or finds it gone.
    unfinished.withLock { _ = $0.insert(temporary) }
    defer { unfinished.withLock { _ = $0.remove(temporary) } }
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
    guard descriptor >= 0 else { throw failure(url, errno) }
    var written = 0
    do {
      if let replaced, fchmod(descriptor, replaced) != 0 { throw failure(url, errno) }
      while written < bytes.count {
        let count = bytes.withUnsafeBytes {
          Glibc.write(descriptor, $0.baseAddress! + written, bytes.count - written)
        }
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { throw failure(url, errno) }
        written += count
      }
      guard fsync(descriptor) == 0 else { throw failure(url, errno) }
      close(descriptor)
    } catch {
      close(descriptor)
      unlink(temporary)
      throw error
    }
    beforeRename.withLock { $0[path] }?()
    // Renamed under the lock, so that an ending signal's removal comes before it or not at all.
    let code: Int32 = unfinished.withLock { _ in
      if replacing { return rename(temporary, path) == 0 ? 0 : errno }
      // A link fails where a file is (one made since it was looked for), leaving it.
      let code = link(temporary, path) == 0 ? 0 : errno
      unlink(temporary)
      return code
    }
    guard code == 0 else {
      unlink(temporary)
      throw failure(url, code)
    }
  }

  private static func failure(_ url: URL, _ code: Int32) -> NSError {
    NSError(
      domain: NSPOSIXErrorDomain, code: Int(code),
      userInfo: [
        NSLocalizedDescriptionKey: "\(url.lastPathComponent): \(String(cString: strerror(code)))",
        NSUnderlyingErrorKey: NSError(domain: NSPOSIXErrorDomain, code: Int(code)),
      ])
  }
}
