import Foundation

/// How a Lua test's messages name a file: as the person who ran the tests can open it (or jump
/// to it from `file:line` in an editor). A bare file name is not enough: features in different
/// folders have test files of the same name, and a name alone opens nothing from elsewhere.
enum LuaTestPath {
  /// The path of `url` relative to `directory` (the current one by default) when the file is
  /// under it, else its absolute path.
  static func display(_ url: URL, from directory: String? = nil) -> String {
    let path = url.standardizedFileURL.path
    let base = directory ?? FileManager.default.currentDirectoryPath
    if let relative = relative(path, to: base) { return relative }
    // The same folder by another name (a symlink on the way, as /tmp is on macOS).
    let resolved = url.standardizedFileURL.resolvingSymlinksInPath().path
    let resolvedBase = URL(fileURLWithPath: base).resolvingSymlinksInPath().path
    return relative(resolved, to: resolvedBase) ?? path
  }

  private static func relative(_ path: String, to base: String) -> String? {
    let prefix = base.hasSuffix("/") ? base : base + "/"
    guard path.hasPrefix(prefix), path.count > prefix.count else { return nil }
    return String(path.dropFirst(prefix.count))
  }
}
