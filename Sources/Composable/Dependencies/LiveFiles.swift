import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The live file client's work: paths walked under a root without following the kernel's
/// symlinks, and what each operation does there (`LiveFiles+Operations.swift`).
struct LiveFiles: Sendable {
  let root: URL
  let readLimit: Int
  /// Names at the top of the root that are the host's, with why (`FileClient.live(reserving:)`).
  let reserved: [String: String]
  /// Starts of names at the top of the root that are the host's, with why
  /// (`FileClient.live(reservingNamesStartingWith:)`).
  let reservedStarts: [String: String]

  init(
    root: URL, readLimit: Int, reserved: [String: String] = [:],
    reservedStarts: [String: String] = [:]
  ) {
    self.root = Self.resolved(root)
    self.readLimit = max(0, readLimit)
    self.reserved = reserved
    self.reservedStarts = reservedStarts
  }

  /// Throws when `name` in `directory` (where a walk ended) is a reserved name at the top of
  /// the root, or starts as one: found by where it is, not by the path that led there.
  func refuseReserved(_ directory: Int32, _ name: String, _ path: DataPath) throws {
    guard
      let why = reserved[name]
        ?? reservedStarts.first(where: { name.hasBytePrefix($0.key) })?.value
    else { return }
    var here = stat(), top = stat()
    guard fstat(directory, &here) == 0, stat(root.path, &top) == 0 else { return }
    if here.st_dev == top.st_dev, here.st_ino == top.st_ino {
      throw FileClientError("\(path): \(why)")
    }
  }

  /// Where `path` leads (`FileClient.locate`): the folder its walk ends in and the name there;
  /// nil when the walk fails (a folder missing, a link out of the root).
  func location(of path: DataPath, followingLast: Bool) -> FileLocation? {
    guard let (directory, name) = try? open(path, followingLast: followingLast) else { return nil }
    defer { close(directory) }
    var status = stat()
    guard fstat(directory, &status) == 0 else { return nil }
    return FileLocation(device: UInt64(status.st_dev), folder: UInt64(status.st_ino), name: name)
  }

  /// The parts of `path` between its bytes `/`, as the kernel cuts it (not at Characters,
  /// which may hold a `/` and a mark after it: see DataPath).
  static func pathComponents(_ path: String) -> [String] {
    path.utf8.split(separator: UInt8(ascii: "/")).map { String(decoding: $0, as: UTF8.self) }
  }

  /// `url` with the symlinks of the part of it that exists resolved (as the kernel would resolve
  /// them, `..` after a link included), and the rest, not made yet, as written: every folder
  /// of the result is then a real folder, or one made later by a client's write.
  static func resolved(_ url: URL) -> URL {
    let components = pathComponents(url.path)
    for existing in stride(from: components.count, through: 0, by: -1) {
      let prefix = "/" + components[..<existing].joined(separator: "/")
      guard let real = realpath(prefix, nil) else { continue }
      defer { free(real) }
      var result = URL(fileURLWithPath: String(cString: real))
      for component in components[existing...] { result.appendPathComponent(String(component)) }
      return result.standardizedFileURL
    }
    return url.standardizedFileURL
  }

  /// The root, opened one folder at a time from `/` without following a symlink: the root's
  /// own symlinks were resolved when the client was made, so a symlink met now (the data folder,
  /// or a folder above it, moved away and a link to elsewhere put in its place) was put there
  /// since, and is not followed. -1 with `errno` set, as `open`.
  private func openRoot() -> Int32 {
    var descriptor = Glibc.open("/", Self.directoryFlags)
    for component in Self.pathComponents(root.path) {
      guard descriptor >= 0 else { return -1 }
      let next = openat(descriptor, String(component), Self.directoryFlags)
      let failure = errno
      // O_DIRECTORY with O_NOFOLLOW on a symlink fails with ENOTDIR (or ELOOP): say which.
      let link = next < 0 && readLink(descriptor, String(component)) != nil
      close(descriptor)
      guard next >= 0 else {
        errno = link ? ELOOP : failure
        return -1
      }
      descriptor = next
    }
    return descriptor
  }

  /// The name of the directory entry `readdir` gave: read in place, up to its NUL, within the
  /// entry's own length. (`entry.pointee.d_name` copies the whole 256-byte field, past an entry
  /// that ends at the end of the mapped buffer: a crash, in a folder of many files.)
  static func name(of entry: UnsafeMutablePointer<dirent>) -> String {
    let start = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
    let lengthAt = MemoryLayout<dirent>.offset(of: \dirent.d_reclen)!
    let raw = UnsafeRawPointer(entry)
    let length = Int(raw.loadUnaligned(fromByteOffset: lengthAt, as: UInt16.self)) - start
    let bytes = UnsafeRawBufferPointer(start: raw + start, count: max(0, length))
    return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
  }

  /// How many symlinks one path may go through, as the kernel allows.
  static let maximumLinks = 40

  /// Flags of every directory opened on the walk: never through a symlink, never waiting.
  static let directoryFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC

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
    let rootDescriptor = openRoot()
    guard rootDescriptor >= 0 else {
      // No root yet: nothing has been written, so no file is there.
      if errno == ENOENT { throw FileClientError.notFound(path) }
      if errno == ELOOP {
        throw FileClientError(
          "\(path): the folder the files are kept in, \(root.path), is now reached through a "
            + "symlink (it, or a folder above it, was replaced since the start, or it is a link "
            + "that led nowhere then); it is not followed")
      }
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
      if name.utf8.elementsEqual([0x2E]) { continue }  // bytes, not Characters (DataPath)
      if name.utf8.elementsEqual([0x2E, 0x2E]) {  // only from a symlink's target
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
        // By bytes, as the kernel reads it (not by Characters: see DataPath).
        var components = target.utf8.split(separator: UInt8(ascii: "/"))
          .map { String(decoding: $0, as: UTF8.self) }
        if target.hasPrefix("/") {  // absolute: it must name a place under the root
          let rootComponents = root.path.utf8.split(separator: UInt8(ascii: "/"))
            .map { String(decoding: $0, as: UTF8.self) }
          guard
            components.map({ Array($0.utf8) }).starts(with: rootComponents.map { Array($0.utf8) })
          else { throw outside }
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

  /// The lock of `path`: `flock` on the folder that holds it (made when missing), taken
  /// without waiting. Its descriptor, for `unlock`; nil when another holds it. A folder's lock
  /// is shared by the files in it: a save of one waits for a save of another there, briefly.
  /// A file system that has no such locks (some network ones: ENOLCK) gives the descriptor
  /// unlocked: the save goes on as it did before there was a lock, rather than failing.
  func tryLock(_ path: DataPath) throws -> Int32? {
    let (directory, _) = try open(path, followingLast: false, creating: true)
    if flock(directory, LOCK_EX | LOCK_NB) == 0 || errno != EWOULDBLOCK { return directory }
    close(directory)
    return nil
  }

  /// Gives back a lock `tryLock` took.
  static func unlock(_ descriptor: Int32) {
    flock(descriptor, LOCK_UN)
    close(descriptor)
  }

  /// The target of the symlink `name` in `directory`, or nil when it is not one.
  private func readLink(_ directory: Int32, _ name: String) -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let length = readlinkat(directory, name, &buffer, buffer.count - 1)
    guard length >= 0 else { return nil }
    return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
