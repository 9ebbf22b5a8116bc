import Composable
import Foundation

/// Which feature a default data directory is kept for.
///
/// The default directory is named after the feature's file alone
/// (`~/.local/share/composable/todos` for any `todos.lua`), so two projects' `todos.lua` shared
/// one: the second restored the first one's state and saved over it, and the first then found
/// its state gone. The directory holds a marker, `.composable-feature`, with the full path of
/// the feature it is kept for. A feature that persists claims it at start, and stops before its
/// first action when it is kept for another feature still there (one file, whatever path names
/// it, is one feature); every other write there claims it first (a feature that came to persist
/// in a reload, or writes files), and fails so. A marker naming a feature that is not there any
/// more (moved, renamed) is taken over, as is a directory made before markers were kept, or a
/// marker that names no path. A marker is made whole beside and linked into place, and taken over
/// by a rename only one run can make: two runs never both take one folder.
/// `--data` names a directory by hand: no marker is looked at.
enum DataDirectoryOwner {
  static let markerName = ".composable-feature"

  /// Throws for a path that names the marker, given to the feature's files to write, append to
  /// or remove: the marker is the runtime's, and a feature that changed it would give its
  /// folder to another feature or take another's.
  static func refuseMarker(_ path: DataPath) throws {
    guard path.components == [markerName] else { return }
    throw FileClientError("\(path): \(markerIsNotTheFeatures)")
  }

  /// Why a feature's file cannot be the marker: said by `refuseMarker`, and by the live client
  /// for a path that reaches it another way (a symlink in the folder).
  static let markerIsNotTheFeatures =
    "this file records which feature the data directory is kept for; it is composable's, not "
    + "the feature's. To fix, give the feature's file another name"

  /// What claiming the directory found.
  enum Claim: Equatable {
    /// Kept for this feature already, or not there (and not made).
    case kept
    /// Kept for no feature until now (new, or from before markers): this feature's now.
    case taken
    /// Kept for a feature that is not there any more (`from`; nil: the marker named none): this
    /// feature's now.
    case takenOver(from: String?)
  }

  /// Why a run cannot use the directory: it is kept for another feature, or its marker cannot be
  /// read or written.
  struct Refusal: Error, CustomStringConvertible {
    /// What is wrong, and (when there is one) the fix.
    let problem: String
    var fix: String? = nil

    init(description: String) { problem = description }
    init(problem: String, fix: String) { (self.problem, self.fix) = (problem, fix) }

    var description: String { problem + (fix.map { ". To fix, \($0)" } ?? "") }

    /// Said at start: the run stops before its first action.
    var atStart: String {
      problem + ", so the run stops before its first action" + (fix.map { ". To fix, \($0)" } ?? "")
    }
  }

  /// Claims `folder` for the feature at `feature`. `makesFolder`: the folder is made if it is
  /// not there (with its marker); otherwise a folder that is not there is left so.
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
    // Each turn either decides or finds that another run changed the marker meanwhile.
    for _ in 0..<20 {
      let (contents, raw) = read(marker)
      switch contents {
      case .missing:
        if try place(marker, owner, replacing: nil) { return .taken }
      case let .failed(reason):
        throw Refusal(
          problem: "the marker \(marker), which says which feature the data directory "
            + "\(folder.path) is kept for, could not be read (\(reason))",
          fix: "make it readable, remove it if the files there are this feature's, or give this "
            + "feature a folder of its own with --data DIR")
      case .namesNoPath:
        if try place(marker, owner, replacing: raw) { return .takenOver(from: nil) }
      case let .holds(recorded):
        switch standing(of: recorded, against: feature, owner) {
        case .same: return .kept
        case .other:
          throw Refusal(
            problem: "the data directory \(folder.path) is kept for another feature, \(recorded):"
              + " its state and files are not this feature's to restore or write over",
            fix: "give this feature a folder of its own with --data DIR (or, if the files there "
              + "are this feature's now, remove \(marker))")
        case .gone:
          if try place(marker, owner, replacing: raw) { return .takenOver(from: recorded) }
        }
      }
    }
    throw Refusal(
      problem: "the marker \(marker) kept changing while this run looked at it (other runs "
        + "claiming the data directory \(folder.path))", fix: "start one run at a time")
  }

  /// What the feature a marker names is to the feature at `feature` (`owner` its full path).
  private enum Standing { case same, other, gone }

  private static func standing(
    of recorded: String, against feature: URL, _ owner: String
  )
    -> Standing
  {
    if recorded == owner { return .same }
    var theirs = stat()
    guard stat(recorded, &theirs) == 0 else {
      // Gone only when nothing is at that path: a folder that cannot be searched now, a disk
      // not mounted, is no proof.
      return errno == ENOENT || errno == ENOTDIR ? .gone : .other
    }
    guard theirs.st_mode & S_IFMT == S_IFREG else { return .gone }  // no feature there now
    var ours = stat()
    // One file under two names (a folder moved behind a symlink, a bind mount): one feature.
    if stat(feature.path, &ours) == 0, ours.st_dev == theirs.st_dev, ours.st_ino == theirs.st_ino {
      return .same
    }
    return .other
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
    /// There, but not one line holding a path from `/` (written over, or garbage).
    case namesNoPath
  }

  /// The marker's bytes, read with `open`/`read` (at most a path's length and a little: a
  /// longer marker is not one), or why they cannot be read; nil when there is no marker.
  private static func bytes(of marker: String) -> Result<[UInt8]?, Unreadable> {
    // Never waiting (a FIFO there opens at once), never through a symlink.
    let descriptor = open(marker, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)
    guard descriptor >= 0 else {
      if errno == ENOENT { return .success(nil) }
      return .failure(
        Unreadable(errno == ELOOP ? "it is a symlink" : String(cString: strerror(errno))))
    }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      return .failure(Unreadable(String(cString: strerror(errno))))
    }
    guard status.st_mode & S_IFMT == S_IFREG else {
      return .failure(Unreadable("it is \(Self.describe(status.st_mode & S_IFMT)), not a file"))
    }
    var bytes = [UInt8](repeating: 0, count: Int(PATH_MAX) + 8)
    var length = 0
    while length < bytes.count {
      let count = bytes.withUnsafeMutableBytes {
        Glibc.read(descriptor, $0.baseAddress! + length, $0.count - length)
      }
      if count < 0, errno == EINTR { continue }
      if count < 0 { return .failure(Unreadable(String(cString: strerror(errno)))) }
      if count == 0 { break }
      length += count
    }
    return .success(Array(bytes[..<length]))
  }

  private struct Unreadable: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
  }

  /// The marker's path: its one line, a byte-order mark and trailing blanks (a CR, a space, more
  /// newlines: a hand edit) let be.
  private static func read(_ marker: String) -> (Contents, [UInt8]) {
    switch bytes(of: marker) {
    case let .failure(unreadable): return (.failed(unreadable.reason), [])
    case .success(nil): return (.missing, [])
    case let .success(raw?):
      var line = raw[...]
      if line.starts(with: [0xEF, 0xBB, 0xBF]) { line = line.dropFirst(3) }
      while let last = line.last, [0x20, 0x09, 0x0D, 0x0A].contains(last) { line = line.dropLast() }
      guard line.count <= Int(PATH_MAX), line.first == UInt8(ascii: "/"),
        !line.contains(where: { $0 < 0x20 || $0 == 0x7F }),
        let path = String(validating: line, as: UTF8.self)
      else { return (.namesNoPath, raw) }
      return (.holds(path), raw)
    }
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

  /// Puts a marker naming `owner` in place, made whole beside it first (a run never reads one
  /// half written). `replacing`: the bytes of the marker there, which is moved away first, by a
  /// rename only one run can make, and looked at once moved: another run's marker, placed since
  /// it was read, is put back. False when another run got there first: the caller reads the
  /// marker again.
  private static func place(
    _ marker: String, _ owner: String, replacing: [UInt8]?
  )
    throws(Refusal) -> Bool
  {
    let temporary = marker + ".\(getpid()).\(UUID().uuidString).tmp"
    let descriptor = open(
      temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o644)
    guard descriptor >= 0 else {
      throw markerFailure(marker, "written")
    }
    defer { unlink(temporary) }
    do {
      try write(descriptor, owner, to: marker)
      close(descriptor)
    } catch {
      close(descriptor)
      throw error
    }
    if let replacing {
      // Named as a write's leftover is (`.NAME.PID.UUID.tmp`): a run killed here leaves one
      // that a later write removes.
      let old = marker + ".old.\(getpid()).\(UUID().uuidString).tmp"
      guard rename(marker, old) == 0 else {
        if errno == ENOENT { return false }  // another run moved it first
        throw markerFailure(marker, "replaced")
      }
      defer { unlink(old) }
      let moved: [UInt8]? = (try? bytes(of: old).get()) ?? nil
      guard moved == replacing else {
        _ = link(old, marker)  // another run's, placed since it was read: back in its place
        return false
      }
    }
    guard link(temporary, marker) == 0 else {
      if errno == EEXIST { return false }  // another run placed one first
      throw markerFailure(marker, "made")
    }
    return true
  }

  /// The refusal for a marker that could not be `done` (written, replaced, made), by errno:
  /// what the folder needs, or the folder of its own the feature can have instead.
  private static func markerFailure(_ marker: String, _ done: String) -> Refusal {
    let code = errno
    let reason = String(cString: strerror(code))
    let folder = (marker as NSString).deletingLastPathComponent
    let fix =
      switch (code, done) {
      case (ENAMETOOLONG, _):
        "give this feature a folder of its own, by a shorter path, with --data DIR"
      case (_, "replaced"):
        "make \(folder) and the marker in it writable (or remove the marker if the files there "
          + "are this feature's), or give this feature a folder of its own with --data DIR"
      default: "make \(folder) writable, or give this feature a folder of its own with --data DIR"
      }
    return Refusal(
      problem: "the marker \(marker), which says which feature the data directory is kept for, "
        + "could not be \(done) (\(reason))",
      fix: fix)
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
        throw markerFailure(marker, "written")
      }
      bytes = bytes.dropFirst(written)
    }
  }
}
