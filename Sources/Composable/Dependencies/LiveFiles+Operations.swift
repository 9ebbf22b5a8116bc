import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What the live client does with a path once walked: only regular files read and written, never
/// waiting, reads and writes within the limit.
extension LiveFiles {
  /// The type bits of `name` in `directory`, read without following a symlink and without
  /// opening it; nil when there is no such file.
  private func fileType(_ directory: Int32, _ name: String, _ path: DataPath) throws -> mode_t? {
    try fileMode(directory, name, path).map { $0 & S_IFMT }
  }

  /// The mode of `name` in `directory` (type and permission bits), as `fileType` reads it.
  private func fileMode(_ directory: Int32, _ name: String, _ path: DataPath) throws -> mode_t? {
    var status = stat()
    guard fstatat(directory, name, &status, AT_SYMLINK_NOFOLLOW) == 0 else {
      if errno == ENOENT { return nil }
      throw systemFailure(path, errno)
    }
    return status.st_mode
  }

  /// Refuses what is not a regular file, saying what it is.
  private func requireRegular(_ type: mode_t, _ path: DataPath) throws {
    switch type {
    case S_IFREG: return
    case S_IFDIR: throw FileClientError("\(path): is a directory")
    case S_IFLNK: throw FileClientError("\(path): it leads outside the root (through a symlink)")
    default:
      throw FileClientError(
        "\(path): it is \(Self.describe(type)), not a regular file; only regular files are "
          + "read and written")
    }
  }

  /// What a file of type `type` is, in words.
  static func describe(_ type: mode_t) -> String {
    switch type {
    case S_IFIFO: return "a FIFO (named pipe)"
    case S_IFCHR: return "a character device"
    case S_IFBLK: return "a block device"
    case S_IFSOCK: return "a socket"
    case S_IFDIR: return "a directory"
    case S_IFLNK: return "a symlink"
    default: return "a special file"
    }
  }

  /// Opens `name` in `directory` with `flags`, never waiting (`O_NONBLOCK`: a FIFO made there
  /// after it was looked at opens at once, or fails) and never through a symlink, and checks
  /// that what was opened is a regular file. Its size comes with it.
  private func openRegular(
    _ directory: Int32, _ name: String, _ flags: Int32, _ path: DataPath
  ) throws -> (descriptor: Int32, size: Int) {
    let descriptor = openat(
      directory, name, flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else {
      if errno == ELOOP {
        throw FileClientError("\(path): it leads outside the root (through a symlink)")
      }
      if errno == ENXIO {  // a FIFO with nobody to read it, or a socket
        throw FileClientError(
          "\(path): it is not a regular file; only regular files are read and written")
      }
      throw flags & O_ACCMODE == O_RDONLY ? failure(path, errno) : systemFailure(path, errno)
    }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      let code = errno
      close(descriptor)
      throw systemFailure(path, code)
    }
    do { try requireRegular(status.st_mode & S_IFMT, path) } catch {
      close(descriptor)
      throw error
    }
    // A file with another name (a hard link) may be reached from outside the root as well, and
    // a write through it changes that file there: only a file with one name is written in
    // place. (A whole write makes a new file and renames it over the name, which leaves any
    // other names as they were.)
    if flags & O_ACCMODE != O_RDONLY, status.st_nlink > 1 {
      close(descriptor)
      throw FileClientError(
        "\(path): it has \(status.st_nlink) names (hard links), which may lead outside the "
          + "root; it was not written. To fix, give it one name (copy it, remove the others)")
    }
    return (descriptor, Int(status.st_size))
  }

  /// The error for a file of `size` bytes (or more), over the limit.
  private func overLimit(_ path: DataPath, size: Int, writing: Bool = false) -> FileClientError {
    Self.overLimit(path, size: size, limit: readLimit, writing: writing)
  }

  /// The error for a file of `size` bytes past `limit`: a write's (or an append's), or a read's.
  static func overLimit(
    _ path: DataPath, size: Int, limit: Int, writing: Bool = true
  ) -> FileClientError {
    FileClientError(
      writing
        ? "\(path): it would be \(size) bytes, more than the \(limit) a file may hold (the "
          + "read limit, so that it can be read back); nothing was written. To fix, write less "
          + "(for a state: keep less in it, or save a part of it with persist's select)"
        : "\(path): it is \(size) bytes, more than the \(limit) a read takes; it was not read")
  }

  func read(_ path: DataPath) throws -> [UInt8] {
    let (directory, name) = try open(path, followingLast: true)
    defer { close(directory) }
    guard let type = try fileType(directory, name, path) else {
      throw FileClientError.notFound(path)
    }
    try requireRegular(type, path)
    let (descriptor, size) = try openRegular(directory, name, O_RDONLY, path)
    defer { close(descriptor) }
    guard size <= readLimit else { throw overLimit(path, size: size) }
    // Up to one byte past the limit: a file that grew since it was looked at is refused too.
    var contents: [UInt8] = []
    contents.reserveCapacity(size)
    var chunk = [UInt8](repeating: 0, count: min(64 << 10, readLimit + 1))
    while true {
      let wanted = min(chunk.count, readLimit + 1 - contents.count)
      let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, wanted) }
      if count == 0 { break }
      guard count > 0 else {
        if errno == EINTR { continue }
        throw failure(path, errno)
      }
      contents.append(contentsOf: chunk[0..<count])
      guard contents.count <= readLimit else { throw overLimit(path, size: contents.count) }
    }
    return contents
  }

  func write(_ path: DataPath, _ contents: [UInt8]) throws {
    guard !path.isRoot else { throw FileClientError("\(path): is a directory") }
    guard contents.count <= readLimit else {
      throw overLimit(path, size: contents.count, writing: true)
    }
    // Before any folder on the way is made; then the name the walk ends at (a symlink's target).
    if let name = path.name, Self.isTemporaryName(name) { throw Self.temporaryNameRefused(path) }
    let (directory, name) = try open(path, followingLast: true, creating: true)
    defer { close(directory) }
    guard !Self.isTemporaryName(name) else { throw Self.temporaryNameRefused(path) }
    try refuseReserved(directory, name, path)
    // What is there is replaced only if it is a file: never a directory, a FIFO, a device.
    let replaced = try fileMode(directory, name, path)
    if let replaced { try requireRegular(replaced & S_IFMT, path) }
    removeLeftovers(in: directory, of: path)
    let temporary = Self.temporaryName(for: name)
    let descriptor = openat(
      directory, temporary,
      O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else {
      throw FileClientError("\(path): \(String(cString: strerror(errno)))")
    }
    do {
      // The new file takes the permissions of the one it replaces: a file its owner made
      // private (0600) stays so, where the rename would have given it the umask's 0644.
      if let replaced, fchmod(descriptor, replaced & 0o777) != 0 {
        throw FileClientError("\(path): \(String(cString: strerror(errno)))")
      }
      try writeAll(contents, to: descriptor, path: path)
      guard fsync(descriptor) == 0 else {
        throw FileClientError("\(path): \(String(cString: strerror(errno)))")
      }
      close(descriptor)
    } catch {
      close(descriptor)
      unlinkat(directory, temporary, 0)
      throw error
    }
    guard renameat(directory, temporary, directory, name) == 0 else {
      let message = String(cString: strerror(errno))
      unlinkat(directory, temporary, 0)
      throw FileClientError("\(path): \(message)")
    }
    fsync(directory)  // the rename is durable once the directory is flushed too
  }

  func append(_ path: DataPath, _ contents: [UInt8]) throws {
    guard !path.isRoot else { throw FileClientError("\(path): is a directory") }
    guard contents.count <= readLimit else {
      throw overLimit(path, size: contents.count, writing: true)
    }
    // Before any folder on the way is made; then the name the walk ends at (a symlink's target).
    if let name = path.name, Self.isTemporaryName(name) { throw Self.temporaryNameRefused(path) }
    let (directory, name) = try open(path, followingLast: true, creating: true)
    defer { close(directory) }
    guard !Self.isTemporaryName(name) else { throw Self.temporaryNameRefused(path) }
    try refuseReserved(directory, name, path)
    if let type = try fileType(directory, name, path) { try requireRegular(type, path) }
    let (descriptor, size) = try openRegular(directory, name, O_WRONLY | O_CREAT | O_APPEND, path)
    defer { close(descriptor) }
    guard size <= readLimit - contents.count else {
      throw overLimit(path, size: size + contents.count, writing: true)
    }
    var written = 0
    do {
      try writeAll(contents, to: descriptor, path: path, written: &written)
    } catch {
      // An append that failed writes nothing: the part that went before a full disk (or a file
      // size limit) stopped it is cut off, or a feature trying again would find its record
      // twice, the first one torn (an attacker's finding). Only when the file ends with that
      // part alone: another process appending meanwhile would lose its lines to the cut (an
      // attacker's finding too); then the part stays, and the error says the append failed.
      var status = stat()
      if written > 0, fstat(descriptor, &status) == 0, Int(status.st_size) == size + written {
        _ = ftruncate(descriptor, off_t(size))
      }
      throw error
    }
  }

  func list(_ path: DataPath) throws -> [String] {
    let (directory, name) = try open(path, followingLast: true)
    defer { close(directory) }
    let descriptor = openat(directory, name, Self.directoryFlags)
    guard descriptor >= 0 else {
      throw errno == ENOTDIR ? FileClientError("\(path): is not a directory") : failure(path, errno)
    }
    guard let stream = fdopendir(descriptor) else {
      close(descriptor)
      throw failure(path, errno)
    }
    defer { closedir(stream) }
    var names: [String] = []
    while let entry = readdir(stream) {
      let name = Self.name(of: entry)
      if !name.hasBytePrefix(".") { names.append(name) }
    }
    return names.sorted()
  }

  func exists(_ path: DataPath) throws -> Bool {
    let directory: Int32, name: String
    do {
      (directory, name) = try open(path, followingLast: true)
    } catch let error as FileClientError where error.code == .notFound {
      return false  // a directory on the way is missing
    }
    defer { close(directory) }
    var status = stat()
    return fstatat(directory, name, &status, AT_SYMLINK_NOFOLLOW) == 0
  }

  func remove(_ path: DataPath) throws {
    guard !path.isRoot else {
      throw FileClientError("\(path): the root itself cannot be removed")
    }
    let (directory, name) = try open(path, followingLast: false)
    defer { close(directory) }
    try refuseReserved(directory, name, path)
    guard unlinkat(directory, name, 0) == 0 else {
      throw systemFailure(path, errno)
    }
  }

  private func writeAll(_ contents: [UInt8], to descriptor: Int32, path: DataPath) throws {
    var written = 0
    try writeAll(contents, to: descriptor, path: path, written: &written)
  }

  /// `writeAll`, counting in `offset` the bytes written, a failure's too.
  private func writeAll(
    _ contents: [UInt8], to descriptor: Int32, path: DataPath, written offset: inout Int
  ) throws {
    offset = 0
    while offset < contents.count {
      let written = contents.withUnsafeBytes { buffer in
        Glibc.write(descriptor, buffer.baseAddress! + offset, contents.count - offset)
      }
      guard written > 0 else {
        if written < 0, errno == EINTR { continue }
        throw FileClientError("\(path): \(String(cString: strerror(errno)))")
      }
      offset += written
    }
  }

  /// The error for `errno` `code` on `path`, in the system's words: typed `notFound` when the
  /// file is not there.
  private func systemFailure(_ path: DataPath, _ code: Int32) -> FileClientError {
    code == ENOENT
      ? .notFound(path) : FileClientError("\(path): \(String(cString: strerror(code)))")
  }

  /// The error for `errno` `code` on `path`: typed `notFound` when the file is not there.
  private func failure(_ path: DataPath, _ code: Int32) -> FileClientError {
    code == ENOENT ? .notFound(path) : FileClientError("\(path): \(reason(code))")
  }

  private func reason(_ code: Int32) -> String {
    switch code {
    case ENOENT: return "no such file"
    case EISDIR: return "is a directory"
    case ELOOP: return "it leads outside the root (through a symlink)"
    default: return "cannot be read (\(String(cString: strerror(code))))"
    }
  }
}
