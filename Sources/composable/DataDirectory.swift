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
    for part in path.split(separator: "/", omittingEmptySubsequences: true) {
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
}
