import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension FileClient {
  /// Files under `root`, for real. Paths are relative to `root`; an absolute path, a `..`, or
  /// a symlink that leads outside `root` is refused. A write is atomic: the contents go to a
  /// temporary file beside the target, are flushed to disk, and the file is renamed over the
  /// target, so a crash leaves the old file or the new one, never half of one.
  /// Writes `contents` to `path` under `root` at once, as `live(root:)` writes (atomically,
  /// confined to the root), without a task: for code that cannot wait for one.
  public static func writeNow(_ path: String, _ contents: [UInt8], under root: URL) throws {
    try LiveFiles(root: root).write(path, contents)
  }

  public static func live(root: URL) -> FileClient {
    let files = LiveFiles(root: root)
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

  init(root: URL) {
    self.root = root.standardizedFileURL.resolvingSymlinksInPath()
  }

  /// How many symlinks one path may go through, as the kernel allows.
  static let maximumLinks = 40

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
    _ path: String, followingLast: Bool, creating: Bool = false
  ) throws -> (directory: Int32, name: String) {
    guard !path.isEmpty else { throw FileClientError("the path is empty") }
    guard !path.hasPrefix("/") else {
      throw FileClientError("\(path): absolute paths are refused; give a path under the root")
    }
    var pending = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    guard !pending.contains("..") else {
      throw FileClientError("\(path): '..' is refused; the path must stay under the root")
    }
    let outside = FileClientError("\(path): it leads outside the root (through a symlink)")
    let rootDescriptor = Glibc.open(root.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
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
      var next = openat(here, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
      if next < 0, errno == ENOENT, creating {
        if mkdirat(here, name, 0o755) != 0, errno != EEXIST {
          throw FileClientError("\(path): its directory cannot be created")
        }
        next = openat(here, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
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

  func read(_ path: String) throws -> [UInt8] {
    let (directory, name) = try open(path, followingLast: true)
    defer { close(directory) }
    let descriptor = openat(directory, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard descriptor >= 0 else { throw failure(path, errno) }
    defer { close(descriptor) }
    var status = stat()
    if fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR {
      throw FileClientError("\(path): is a directory")
    }
    var contents: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 << 10)
    while true {
      let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
      if count == 0 { break }
      guard count > 0 else {
        if errno == EINTR { continue }
        throw failure(path, errno)
      }
      contents.append(contentsOf: chunk[0..<count])
    }
    return contents
  }

  func write(_ path: String, _ contents: [UInt8]) throws {
    let (directory, name) = try open(path, followingLast: true, creating: true)
    defer { close(directory) }
    let temporary = ".\(name).\(UUID().uuidString).tmp"
    let descriptor = openat(
      directory, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
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

  func append(_ path: String, _ contents: [UInt8]) throws {
    let (directory, name) = try open(path, followingLast: true, creating: true)
    defer { close(directory) }
    let descriptor = openat(
      directory, name, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { throw systemFailure(path, errno) }
    defer { close(descriptor) }
    try writeAll(contents, to: descriptor, path: path)
  }

  func list(_ path: String) throws -> [String] {
    let (directory, name) = try open(path.isEmpty ? "." : path, followingLast: true)
    defer { close(directory) }
    let descriptor = openat(directory, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
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

  func exists(_ path: String) throws -> Bool {
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

  func remove(_ path: String) throws {
    let (directory, name) = try open(path, followingLast: false)
    defer { close(directory) }
    guard unlinkat(directory, name, 0) == 0 else {
      throw systemFailure(path, errno)
    }
  }

  private func writeAll(_ contents: [UInt8], to descriptor: Int32, path: String) throws {
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
  private func systemFailure(_ path: String, _ code: Int32) -> FileClientError {
    code == ENOENT
      ? .notFound(path) : FileClientError("\(path): \(String(cString: strerror(code)))")
  }

  /// The error for `errno` `code` on `path`: typed `notFound` when the file is not there.
  private func failure(_ path: String, _ code: Int32) -> FileClientError {
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
