import Foundation

/// The data directory a run saves into, made (with the folders above it) at its first write.
///
/// Made with `mkdir` folder by folder rather than FileManager's `createDirectory`, whose error
/// reads `Error Domain=NSCocoaErrorDomain Code=513 "..." UserInfo={...}` in a save failure: this
/// one names the folder that could not be made and the system's reason (`Permission denied`).
enum DataDirectory {
  /// A folder of the path that could not be made, and why.
  struct MakeError: Error, CustomStringConvertible {
    let description: String
  }

  /// Makes `root` and any folder above it that is missing. A folder that is there already
  /// (made by another process meanwhile too) is fine; anything else there is an error.
  static func make(_ root: URL) throws(MakeError) {
    // The path the save's writes use, folder by folder as it stands (a `..` in it was resolved
    // on its text when the URL was made, for the writes as for this).
    let path = root.path
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
      isDirectory.boolValue
    {
      return
    }
    var made = path.hasPrefix("/") ? "" : "."
    // Cut at the byte `/` (a Character may hold one: see DataPath).
    for part in path.utf8.split(separator: UInt8(ascii: "/")).map({
      String(decoding: $0, as: UTF8.self)
    }) {
      made += "/" + part
      if mkdir(made, 0o777) == 0 { continue }
      let error = errno
      var status = stat()
      if error == EEXIST, stat(made, &status) == 0, status.st_mode & S_IFMT == S_IFDIR { continue }
      throw MakeError(
        description: error == EEXIST
          ? "\(made) is there and is not a directory"
          : "the directory \(made) could not be made: \(String(cString: strerror(error)))")
    }
  }

  /// What is wrong with `folder` as a place to keep files, and the fix; nil when nothing is
  /// seen wrong there. The nearest part of the path that is there is looked at as it is
  /// (`lstat`): a file there means no folder can be made under it; a symlink is looked through
  /// (the files follow one that leads to a folder at the start), and one that leads nowhere is
  /// named as such, not taken for a folder still to be made. The folder itself must be
  /// readable, writable and searchable; a folder above it, where the rest would be made,
  /// writable and searchable. Checked with the effective user, as the writes are.
  ///
  /// With `checkingLength`, a path the system cannot name is a problem too: the data directory
  /// is made by its whole path (`make`), where the folders under it are made one at a time
  /// from it (`openat`), so a saved file's folders may go deeper than `PATH_MAX`.
  static func problem(with folder: URL, checkingLength: Bool = true) -> String? {
    if checkingLength, let tooLong = lengthProblem(folder.path) { return tooLong }
    var existing = folder.path
    var status = stat()
    while lstat(existing, &status) != 0 {
      let parent = (existing as NSString).deletingLastPathComponent
      if parent == existing || parent.isEmpty { return nil }
      existing = parent
    }
    let isTheFolder = existing == folder.path
    if status.st_mode & S_IFMT == S_IFLNK {
      let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: existing)) ?? "?"
      if stat(existing, &status) != 0 {
        let why = errno == ELOOP ? "a loop of symlinks" : "\(target), which is not there"
        return "\(existing) is a symlink that leads nowhere (to \(why)). To fix, make the "
          + "directory it leads to, or pass --data with a directory"
      }
    }
    switch status.st_mode & S_IFMT {
    case S_IFDIR: break
    case S_IFREG:
      return isTheFolder
        ? "\(existing) is a file, not a directory. To fix, move it away, or pass --data with a "
          + "directory"
        : "\(existing) is a file, not a directory, so \(folder.path) cannot be made under it. "
          + "To fix, pass --data with a directory that is not under a file"
    default:
      return "\(existing) is not a directory (\(kindName(status.st_mode))). To fix, pass --data "
        + "with a directory"
    }
    let needed = isTheFolder ? R_OK | W_OK | X_OK : W_OK | X_OK
    guard faccessat(AT_FDCWD, existing, needed, AT_EACCESS) != 0 else { return nil }
    let reason = String(cString: strerror(errno))
    let what = isTheFolder ? "read and written" : "written to"
    if let flag = attributeRefusingChanges(existing) {  // no chmod lifts it
      return "\(existing) is \(flag) (\(reason)), so no file can be made in it. To fix, take the "
        + "attribute off (\(flag == "immutable" ? "chattr -i" : "chattr -a") \(existing)), or "
        + "pass --data with another directory"
    }
    guard status.st_uid == geteuid() else {
      return "\(existing) cannot be \(what) by you (\(reason); it belongs to user "
        + "\(status.st_uid)). To fix, pass --data with a directory you can write to"
    }
    return "\(existing) cannot be \(what) (\(reason)). To fix, make it yours to use (chmod u+rwx "
      + "\(existing)), or pass --data with a directory you can write to"
  }

  /// Why the saved file at `file`, which a save replaces by renaming a new file over it, cannot
  /// be replaced by this process though its folder can be written to, or nil: in a folder with
  /// the sticky bit (as /tmp), only the file's owner, the folder's or root may rename over it.
  /// A run there ran every action, then lost them all at the end (an attacker's finding).
  static func replaceProblem(_ file: URL) -> String? {
    if let flag = attributeRefusingChanges(file.path) {
      return "\(file.path) is \(flag), so no save could replace it. To fix, take the attribute "
        + "off (\(flag == "immutable" ? "chattr -i" : "chattr -a") \(file.path)), or pass --data "
        + "with another directory"
    }
    var fileStatus = stat(), folderStatus = stat()
    let folder = file.deletingLastPathComponent().path
    guard lstat(file.path, &fileStatus) == 0, stat(folder, &folderStatus) == 0,
      folderStatus.st_mode & S_ISVTX != 0
    else { return nil }
    let me = geteuid()
    guard me != 0, fileStatus.st_uid != me, folderStatus.st_uid != me else { return nil }
    return "\(file.path) belongs to user \(fileStatus.st_uid), in a folder where only a file's "
      + "owner may replace it (the sticky bit, as in /tmp), so no save could replace it. To fix, "
      + "have it removed or given to you, or pass --data with a directory of your own"
  }

  /// `immutable` or `append-only` when the file or folder at `path` has that attribute (`chattr
  /// +i`, `+a`), which no permission lifts (root's neither): a file with it cannot be replaced,
  /// a folder with it gets no new file. Nil otherwise, or when it cannot be told.
  static func attributeRefusingChanges(_ path: String) -> String? {
    let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var flags: Int32 = 0
    // FS_IOC_GETFLAGS (_IOR('f', 1, long)); the kernel writes an int.
    guard ioctl(descriptor, 0x8008_6601, &flags) == 0 else { return nil }
    if flags & 0x10 != 0 { return "immutable" }  // FS_IMMUTABLE_FL
    if flags & 0x20 != 0 { return "append-only" }  // FS_APPEND_FL
    return nil
  }

  /// Why no folder could be made at `path` for its length, or nil: the system names a path of
  /// at most `PATH_MAX - 1` bytes in one call (`make` makes folders by their whole path) and a
  /// folder of at most `NAME_MAX` (where `make` would have made the folders above it first, and
  /// left them).
  static func lengthProblem(_ given: String) -> String? {
    // A relative path is as long as the current folder's path with it (a short `--data` in a
    // deep folder ran its actions, then lost the state).
    let path = given.hasPrefix("/") ? given : currentFolder() + "/" + given
    let pathLimit = Int(PATH_MAX) - 1
    let shown = path.utf8.count > 80 ? String(path.prefix(60)) + "..." : path
    if path.utf8.count > pathLimit {
      return "the path \(shown) is \(path.utf8.count) bytes long; the system takes at most "
        + "\(pathLimit). To fix, pass --data with a shorter path"
    }
    let nameLimit = Int(NAME_MAX)
    for name in path.utf8.split(separator: UInt8(ascii: "/")) where name.count > nameLimit {
      let text = String(decoding: name, as: UTF8.self)
      let named = text.utf8.count > 40 ? String(text.prefix(30)) + "..." : text  // Characters
      return "the folder name \(named) in \(shown) is \(name.count) bytes long; the system takes "
        + "at most \(nameLimit). To fix, pass --data with shorter names"
    }
    return nil
  }

  /// The current folder's path, as long as it is (Foundation's `currentDirectoryPath` gave a
  /// shorter answer for a deep one).
  private static func currentFolder() -> String {
    guard let path = getcwd(nil, 0) else { return "" }
    defer { free(path) }
    return String(cString: path)
  }

  /// What a file of `mode` is, for a person.
  private static func kindName(_ mode: mode_t) -> String {
    switch mode & S_IFMT {
    case S_IFCHR: "a character device"
    case S_IFBLK: "a block device"
    case S_IFIFO: "a FIFO"
    case S_IFSOCK: "a socket"
    default: "not a file or a directory"
    }
  }
}
