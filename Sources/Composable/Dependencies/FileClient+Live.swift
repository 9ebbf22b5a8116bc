import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension FileClient {
  /// How many bytes a read of the live client takes by default: 64 MiB, the default memory cap
  /// of a feature's Lua VM. What a read gives goes into that VM whole (as the `contents` of an
  /// action, or a saved state parsed there), so a larger file could not be used, and reading it
  /// first would only cost the host as much memory. Writes are held to the same limit, so that
  /// nothing the client writes is refused when it is read back.
  public static let defaultReadLimit = 64 << 20

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
  public static func live(root: URL, readLimit: Int = defaultReadLimit) -> FileClient {
    let files = LiveFiles(root: root, readLimit: readLimit)
    return FileClient(
      read: { try files.read($0) },
      write: { try files.write($0, $1) },
      append: { try files.append($0, $1) },
      list: { try files.list($0) },
      remove: { try files.remove($0) },
      exists: { try files.exists($0) })
  }
}

struct LiveFiles: Sendable {
  let root: URL
  let readLimit: Int

  init(root: URL, readLimit: Int) {
    self.root = root.standardizedFileURL.resolvingSymlinksInPath()
    self.readLimit = max(0, readLimit)
  }

  /// How many symlinks one path may go through, as the kernel allows.
  static let maximumLinks = 40

  /// Flags of every directory opened on the walk: never through a symlink, never waiting.
  private static let directoryFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC

  /// The directory that holds `path`'s last component, open, and that component's name.
  ///
  /// The path is walked from the root one component at a time, each directory opened relative
  /// to the one before with `O_NOFOLLOW`: no symlink is ever followed by the kernel, existing or
  /// made mid-way by someone else, so nothing can lead a read or a write outside the root. A
  /// symlink met on the way is read and followed here, only while it stays under the root (a
  /// relative target is walked from where the link is; `..` may not climb above the root; an
  /// absolute one must name a place under it). With `followingLast`, the last component is not
  /// a symlink either (it is followed the same way); without, it may be one (to remove the
  /// link itself). With `creating`, missing directories are made on the way.
  func open(
    _ path: DataPath, followingLast: Bool, creating: Bool = false
  ) throws -> (directory: Int32, name: String) {
    var pending = path.components
    let outside = FileClientError("\(path): it leads outside the root (through a symlink)")
    let rootDescriptor = Glibc.open(root.path, Self.directoryFlags & ~O_NOFOLLOW)
    guard rootDescriptor >= 0 else {
      // No root yet: nothing has been written, so no file is there.
      if errno == ENOENT { throw FileClientError.notFound(path) }
      throw FileClientError("\(path): the root cannot be opened")
    }
    var directories = [rootDescriptor]  // from the root down to where the walk is
    var handedOver = false
    defer {
      for (index, descriptor) in directories.enumerated()
      where !(handedOver && index == directories.count - 1) {
        close(descriptor)
      }
    }
    var links = 0
    while !pending.isEmpty {
      let name = pending.removeFirst()
      if name == "." { continue }
      if name == ".." {  // only from a symlink's target
        guard directories.count > 1 else { throw outside }
        close(directories.removeLast())
        continue
      }
      let here = directories[directories.count - 1]
      let last = pending.isEmpty
      if let target = readLink(here, name), !last || followingLast {
        links += 1
        guard links <= Self.maximumLinks else {
          throw FileClientError("\(path): too many symlinks on the way")
        }
        var components = target.split(separator: "/", omittingEmptySubsequences: true)
          .map(String.init)
        if target.hasPrefix("/") {  // absolute: it must name a place under the root
          let rootComponents = root.path.split(separator: "/").map(String.init)
          guard components.starts(with: rootComponents) else { throw outside }
          components.removeFirst(rootComponents.count)
          for descriptor in directories.dropFirst() { close(descriptor) }
          directories = [rootDescriptor]
        }
        pending = components + pending
        continue
      }
      if last {
        handedOver = true
        return (here, name)
      }
      var next = openat(here, name, Self.directoryFlags)
      if next < 0, errno == ENOENT, creating {
        if mkdirat(here, name, 0o755) != 0, errno != EEXIST {
          throw FileClientError("\(path): its directory cannot be created")
        }
        next = openat(here, name, Self.directoryFlags)
      }
      guard next >= 0 else {
        switch errno {
        case ENOENT: throw FileClientError.notFound(path)
        case ELOOP: throw outside  // a symlink made after it was read: not followed
        case ENOTDIR: throw FileClientError("\(path): \(name) is not a directory")
        default: throw FileClientError("\(path): \(String(cString: strerror(errno)))")
        }
      }
      directories.append(next)
    }
    // The path named the root itself (".").
    handedOver = true
    directories.removeFirst()
    let duplicate = dup(rootDescriptor)
    close(rootDescriptor)
    return (duplicate, ".")
  }

  /// The target of the symlink `name` in `directory`, or nil when it is not one.
  private func readLink(_ directory: Int32, _ name: String) -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let length = readlinkat(directory, name, &buffer, buffer.count - 1)
    guard length >= 0 else { return nil }
    return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// The type bits of `name` in `directory`, read without following a symlink and without
  /// opening it; nil when there is no such file.
  private func fileType(_ directory: Int32, _ name: String, _ path: DataPath) throws -> mode_t? {
    var status = stat()
    guard fstatat(directory, name, &status, AT_SYMLINK_NOFOLLOW) == 0 else {
      if errno == ENOENT { return nil }
      throw systemFailure(path, errno)
    }
    return status.st_mode & S_IFMT
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
    return (descriptor, Int(status.st_size))
  }

  /// The error for a file of `size` bytes (or more), over the limit.
  private func overLimit(_ path: DataPath, size: Int, writing: Bool = false) -> FileClientError {
    FileClientError(
      writing
        ? "\(path): it would be \(size) bytes, more than the \(readLimit) a file may hold (the "
          + "read limit, so that it can be read back); nothing was written"
        : "\(path): it is \(size) bytes, more than the \(readLimit) a read takes; it was not read")
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
    let (directory, name) = try open(path, followingLast: true, creating: true)
    defer { close(directory) }
    // What is there is replaced only if it is a file: never a directory, a FIFO, a device.
    if let type = try fileType(directory, name, path) { try requireRegular(type, path) }
    let temporary = ".\(name).\(UUID().uuidString).tmp"
    let descriptor = openat(
      directory, temporary,
      O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else {
      throw FileClientError("\(path): \(String(cString: strerror(errno)))")
    }
    do {
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
    let (directory, name) = try open(path, followingLast: true, creating: true)
    defer { close(directory) }
    if let type = try fileType(directory, name, path) { try requireRegular(type, path) }
    let (descriptor, size) = try openRegular(directory, name, O_WRONLY | O_CREAT | O_APPEND, path)
    defer { close(descriptor) }
    guard size <= readLimit - contents.count else {
      throw overLimit(path, size: size + contents.count, writing: true)
    }
    try writeAll(contents, to: descriptor, path: path)
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
      let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
      }
      if !name.hasPrefix(".") { names.append(name) }
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
    guard unlinkat(directory, name, 0) == 0 else {
      throw systemFailure(path, errno)
    }
  }

  private func writeAll(_ contents: [UInt8], to descriptor: Int32, path: DataPath) throws {
    var offset = 0
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
    default: return "cannot be read"
    }
  }
}
