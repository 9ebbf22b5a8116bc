import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A file written whole, where a reader never sees half of it: into a new file beside it, then
/// renamed over it. The new file has the permission bits of the one it replaces from the
/// moment it is made (a private session stayed world-readable while it was written, then was
/// changed by its path, which a link swapped in would have taken), or the umask's for a new
/// one. Its owner is whoever writes it, as for any file made anew; the set-user-ID, set-group-ID
/// and sticky bits are not carried over to a file someone else may now own.
enum ReplacedFile {
  /// Writes `bytes` at `url`, replacing what is there; throws an error naming the file and the
  /// system's reason.
  static func write(_ bytes: [UInt8], to url: URL) throws {
    let path = url.path
    var status = stat()
    let replaced = lstat(path, &status) == 0 ? status.st_mode & 0o777 : nil
    let temporary =
      url.deletingLastPathComponent().appendingPathComponent(
        ".\(url.lastPathComponent).\(getpid()).\(UUID().uuidString).tmp"
      ).path
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
    guard rename(temporary, path) == 0 else {
      let code = errno
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
