import Foundation
import Synchronization

/// How a Lua test's messages name a file: as the person who ran the tests can open it (or jump
/// to it from `file:line` in an editor). A bare file name is not enough: features in different
/// folders have test files of the same name, and a name alone opens nothing from elsewhere.
enum LuaTestPath {
  /// The path of `url` relative to `directory` (the current one by default) when the file is
  /// under it, else its absolute path.
  static func display(_ url: URL, from directory: String? = nil) -> String {
    let name = path(of: url, from: directory)
    noteIfShortened(name)
    return name
  }

  private static func path(of url: URL, from directory: String?) -> String {
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

  // MARK: Names Lua shortens

  /// The most bytes of a chunk's name Lua writes in a message (`LUA_IDSIZE` less one, in the
  /// system's Lua, which cannot be rebuilt with more): a longer name is written "..." and its
  /// last `shortenedTail` bytes, in error positions and tracebacks alike.
  static let longestWhole = 59
  static let shortenedTail = 56

  /// The long names given out, by the form Lua shortens them to; nil where two names shorten
  /// alike (neither is then restored).
  private static let shortened = Mutex<[String: String?]>([:])

  private static func noteIfShortened(_ name: String) {
    let bytes = Array(name.utf8)
    guard bytes.count > longestWhole,
      let tail = String(validating: bytes.suffix(shortenedTail), as: UTF8.self)
    else { return }
    shortened.withLock { names in
      let short = "..." + tail
      if let known = names[short], known != name {
        names[short] = .some(nil)
      } else {
        names[short] = name
      }
    }
  }

  /// `message` with each long name Lua shortened ("...tail") written whole again: a message
  /// names the file as one can open it, however deep the folder.
  static func restoringShortenedNames(in message: String) -> String {
    guard message.contains("...") else { return message }
    let names = shortened.withLock { $0 }
    var restored = message
    for case let (short, name?) in names where restored.contains(short) {
      restored = restored.replacingOccurrences(of: short, with: name)
    }
    return restored
  }
}
