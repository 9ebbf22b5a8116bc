import Foundation

/// Which feature a default data directory is kept for.
///
/// The default directory is named after the feature's file alone
/// (`~/.local/share/composable/todos` for any `todos.lua`), so two projects' `todos.lua` shared
/// one: the second restored the first one's state and saved over it, and the first then found
/// its state gone. The directory holds a marker, `.composable-feature`, with the full path of
/// the feature it is kept for; a run of another feature of the same name, while that one is
/// still there, stops before its first action and says how to give it a folder of its own.
/// A marker naming a feature that is gone (moved, renamed) is taken over, as is a directory
/// made before markers were kept. `--data` names a directory by hand: no marker is looked at.
enum DataDirectoryOwner {
  static let markerName = ".composable-feature"

  /// What claiming the directory found.
  enum Claim: Equatable {
    /// Kept for this feature already, or not there (and not made).
    case kept
    /// Kept for no feature until now (new, or from before markers): this feature's now.
    case taken
    /// Kept for a feature that is not there any more (`from`): this feature's now.
    case takenOver(from: String)
  }

  /// Why a run cannot use the directory: it is kept for another feature, or its marker cannot be
  /// read or written.
  struct Refusal: Error, CustomStringConvertible {
    let description: String
  }

  /// Claims `folder` for the feature at `feature`. `makesFolder`: the feature keeps files there
  /// (it persists), so the folder is made now with its marker; otherwise a folder that is not
  /// there is left so, and one that is there is claimed.
  static func claim(_ folder: URL, for feature: URL, makesFolder: Bool) throws(Refusal) -> Claim {
    let owner = fullPath(of: feature)
    let marker = folder.appendingPathComponent(markerName).path
    var status = stat()
    if stat(folder.path, &status) != 0 {
      guard makesFolder else { return .kept }
      do { try DataDirectory.make(folder) } catch { throw Refusal(description: "\(error)") }
    } else if status.st_mode & S_IFMT != S_IFDIR {
      return .kept  // no folder to claim: the writes there say what is wrong
    }
    let recorded: String
    switch read(marker) {
    case .missing:
      if try create(marker, owner) { return .taken }
      return try claim(folder, for: feature, makesFolder: false)  // another run made it first
    case let .failed(reason):
      throw Refusal(
        description: "the marker \(marker), which says which feature the data directory "
          + "\(folder.path) is kept for, could not be read (\(reason)). To fix, make it readable, "
          + "or remove it if the files there are this feature's")
    case let .holds(path):
      recorded = path
    }
    if recorded == owner { return .kept }
    var other = stat()
    if recorded.hasPrefix("/"), stat(recorded, &other) == 0 {
      throw Refusal(
        description: "the data directory \(folder.path) is kept for another feature of the same "
          + "name, \(recorded): this run would restore its state and save over it, so it stops "
          + "before its first action. To fix, give this feature a folder of its own with "
          + "--data DIR (or, if its files are this feature's now, remove \(marker))")
    }
    try replace(marker, owner)
    return .takenOver(from: recorded)
  }

  /// The feature's path from `/`, its symlinks followed: one file run by two names is one feature.
  static func fullPath(of feature: URL) -> String {
    let path = feature.path
    guard let resolved = realpath(path, nil) else { return feature.standardizedFileURL.path }
    defer { free(resolved) }
    return String(cString: resolved)
  }

  private enum Contents {
    case missing
    case failed(String)
    case holds(String)
  }

  /// The marker's path (its one line), read with `open`/`read`: a marker larger than a path can
  /// be is not one.
  private static func read(_ marker: String) -> Contents {
    // Never waiting (a FIFO there opens at once), never through a symlink.
    let descriptor = open(marker, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)
    guard descriptor >= 0 else {
      if errno == ENOENT { return .missing }
      return .failed(errno == ELOOP ? "it is a symlink" : String(cString: strerror(errno)))
    }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { return .failed(String(cString: strerror(errno))) }
    guard status.st_mode & S_IFMT == S_IFREG else {
      return .failed("it is \(Self.describe(status.st_mode & S_IFMT)), not a file")
    }
    var bytes = [UInt8](repeating: 0, count: Int(PATH_MAX) + 2)
    var length = 0
    while length < bytes.count {
      let count = bytes.withUnsafeMutableBytes {
        Glibc.read(descriptor, $0.baseAddress! + length, $0.count - length)
      }
      if count < 0, errno == EINTR { continue }
      if count < 0 { return .failed(String(cString: strerror(errno))) }
      if count == 0 { break }
      length += count
    }
    var line = bytes[..<length]
    if line.last == UInt8(ascii: "\n") { line = line.dropLast() }
    return .holds(String(decoding: line, as: UTF8.self))
  }

  /// What a file of type `type` is, in words.
  private static func describe(_ type: mode_t) -> String {
    switch type {
    case S_IFDIR: "a directory"
    case S_IFIFO: "a FIFO (named pipe)"
    case S_IFSOCK: "a socket"
    case S_IFCHR: "a character device"
    case S_IFBLK: "a block device"
    default: "a special file"
    }
  }

  /// Makes the marker naming `owner`, unless there is one already (made by another run since it
  /// was looked for): then false.
  private static func create(_ marker: String, _ owner: String) throws(Refusal) -> Bool {
    let descriptor = open(marker, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else {
      if errno == EEXIST { return false }
      throw Refusal(
        description: "the marker \(marker) could not be made: \(String(cString: strerror(errno)))")
    }
    defer { close(descriptor) }
    try write(descriptor, owner, to: marker)
    return true
  }

  /// Replaces the marker by one naming `owner`: written beside it, then renamed over it.
  private static func replace(_ marker: String, _ owner: String) throws(Refusal) {
    let temporary = marker + ".\(getpid()).tmp"
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o644)
    guard descriptor >= 0 else {
      throw Refusal(
        description:
          "the marker \(marker) could not be written: \(String(cString: strerror(errno)))")
    }
    do {
      try write(descriptor, owner, to: marker)
      close(descriptor)
    } catch {
      close(descriptor)
      unlink(temporary)
      throw error
    }
    if rename(temporary, marker) != 0 {
      let reason = String(cString: strerror(errno))
      unlink(temporary)
      throw Refusal(description: "the marker \(marker) could not be written: \(reason)")
    }
  }

  private static func write(
    _ descriptor: Int32, _ owner: String, to marker: String
  )
    throws(Refusal)
  {
    var bytes = Array((owner + "\n").utf8)[...]
    while !bytes.isEmpty {
      let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
      if written < 0, errno == EINTR { continue }
      guard written > 0 else {
        throw Refusal(
          description: "the marker \(marker) could not be written: "
            + String(cString: strerror(errno)))
      }
      bytes = bytes.dropFirst(written)
    }
  }
}
