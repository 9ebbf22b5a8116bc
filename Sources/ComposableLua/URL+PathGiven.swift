import Foundation

extension URL {
  /// The file or folder a path a person gave names (on the command line, in a REPL command), as
  /// the kernel finds it.
  ///
  /// Foundation's `URL(fileURLWithPath:)` takes a relative path's `..` as text: `link/../f.lua`
  /// became `f.lua` beside the link, while a shell, an editor and `lua5.4` open the `f.lua` beside
  /// the folder the link points to. So the feature run, the folder a state was saved in or the
  /// session read were other files than the ones named. Here a relative path is put under
  /// `directory` (the current folder by default) as text, and the part of it up to its last `..`
  /// is resolved by `realpath`, as the kernel goes up: from where a link points. No `..` is left
  /// for a later `standardizedFileURL` to take as text. Links after the last `..` are kept, so
  /// hot reload still follows them when they are re-pointed. A part that does not exist (a folder
  /// not made yet) is kept as text, `..` and all, for the kernel to refuse or follow.
  package init(pathGiven path: String, from directory: String? = nil) {
    let isFolder =
      path.hasSuffix("/") || path.hasSuffix("/.") || path.hasSuffix("/..")
      || path == ".."
    // No `..`: Foundation's URL is the file the kernel opens (`.` and doubled slashes name
    // nothing), and it keeps a relative path relative, which opens under a current folder
    // whose path is longer than the system takes whole.
    guard path.split(separator: "/").contains("..") else {
      guard directory != nil || path.hasPrefix("/") else {
        self.init(fileURLWithPath: path, isDirectory: isFolder)
        return
      }
      let absolute = path.hasPrefix("/") ? path : directory! + "/" + path
      let components = absolute.split(separator: "/").filter { $0 != "." }
      self.init(fileURLWithPath: "/" + components.joined(separator: "/"), isDirectory: isFolder)
      return
    }
    let base = directory ?? Self.currentFolder()
    let absolute = path.hasPrefix("/") || base.isEmpty ? path : base + "/" + path
    let components = absolute.split(separator: "/").filter { $0 != "." }
    let root = absolute.hasPrefix("/") ? "/" : ""
    let last = components.lastIndex(of: "..")!
    let upTo = root + components[...last].joined(separator: "/")
    guard let resolved = realpath(upTo, nil) else {
      // Not there: the kernel refuses it as written. Too long for the system: as Foundation
      // has it, the one way it can be opened at all.
      self.init(
        fileURLWithPath: errno == ENAMETOOLONG ? path : absolute, isDirectory: isFolder)
      return
    }
    defer { free(resolved) }
    var url = URL(fileURLWithPath: String(cString: resolved), isDirectory: true)
    for component in components[(last + 1)...] { url.appendPathComponent(String(component)) }
    self.init(fileURLWithPath: url.path, isDirectory: isFolder)
  }

  /// The current folder's path, as long as it is (Foundation's `currentDirectoryPath` gives a
  /// shorter answer for a deep one), or "" when it was deleted.
  private static func currentFolder() -> String {
    guard let path = getcwd(nil, 0) else { return "" }
    defer { free(path) }
    return String(cString: path)
  }
}
