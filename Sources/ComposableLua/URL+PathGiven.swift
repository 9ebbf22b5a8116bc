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
    let base = directory ?? Self.currentFolder()
    let absolute = path.hasPrefix("/") || base.isEmpty ? path : base + "/" + path
    // `.` and empty components name nothing: taken out as text, as the kernel skips them.
    let components = absolute.split(separator: "/").filter { $0 != "." }
    let isFolder = path.hasSuffix("/") || path.hasSuffix("/.") || components.last == ".."
    let root = absolute.hasPrefix("/") ? "/" : ""
    guard let last = components.lastIndex(of: "..") else {
      self.init(fileURLWithPath: root + components.joined(separator: "/"), isDirectory: isFolder)
      return
    }
    let upTo = root + components[...last].joined(separator: "/")
    guard let resolved = realpath(upTo, nil) else {
      self.init(fileURLWithPath: absolute, isDirectory: isFolder)
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
