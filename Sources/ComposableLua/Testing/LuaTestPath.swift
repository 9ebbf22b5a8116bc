import Foundation
import LuaKit
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
    let path = normalized(url).path
    let base = directory ?? FileManager.default.currentDirectoryPath
    // No current folder to be relative to (it was deleted): the whole path.
    guard !base.isEmpty else { return path }
    if let relative = relative(path, to: base) { return relative }
    // The same folder by another name (a symlink on the way, as /tmp is on macOS).
    let resolved = normalized(url).resolvingSymlinksInPath().path
    let resolvedBase = URL(fileURLWithPath: base).resolvingSymlinksInPath().path
    return relative(resolved, to: resolvedBase) ?? path
  }

  /// `url` without `.` components and doubled slashes, and with each `..` gone up as the
  /// kernel goes up: from a symlink's target, not from the folder that holds the link. (A
  /// lexical `standardizedFileURL` takes `link/../t_test.lua` for `t_test.lua` beside the link,
  /// another file than the one a shell or `lua5.4` opens.)
  static func normalized(_ url: URL) -> URL {
    guard url.path.split(separator: "/").contains("..") else { return url.standardizedFileURL }
    let folder = url.deletingLastPathComponent().path
    guard let resolved = realpath(folder, nil) else { return url }
    defer { free(resolved) }
    let last = url.lastPathComponent
    let base = URL(fileURLWithPath: String(cString: resolved), isDirectory: true)
    // A path that ends in `..` names a folder: the resolved one's parent, as the kernel has it.
    return last == ".." ? base.deletingLastPathComponent() : base.appendingPathComponent(last)
  }

  /// `path` relative to `base`, compared byte for byte: two names that are the same text in
  /// another Unicode form (é composed and decomposed) are two folders on Linux.
  private static func relative(_ path: String, to base: String) -> String? {
    let prefix = Array((base.hasSuffix("/") ? base : base + "/").utf8)
    let bytes = Array(path.utf8)
    guard bytes.count > prefix.count, bytes.starts(with: prefix) else { return nil }
    return String(decoding: bytes[prefix.count...], as: UTF8.self)
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
    guard bytes.count > longestWhole else {
      // Written whole, but it reads as a cut name (a folder named "..."): never restored.
      if name.hasPrefix("...") { shortened.withLock { $0[name] = .some(nil) } }
      return
    }
    let tail = bytes.suffix(shortenedTail)
    // Lua cuts bytes, so the cut may fall inside a character: the message then holds the
    // broken bytes as a decoder shows them (U+FFFD), or as Lua's escapes (`\227`).
    var forms = [String(decoding: tail, as: UTF8.self)]
    if String(validating: tail, as: UTF8.self) == nil {
      forms.append(LuaString(bytes: Array(tail)).description)
    }
    shortened.withLock { names in
      for form in forms {
        let short = "..." + form
        if let known = names[short], known != name {
          names[short] = .some(nil)
        } else {
          names[short] = name
        }
      }
    }
  }

  /// `message` with each long name Lua shortened ("...tail") written whole again where Lua
  /// wrote it, a position (`...tail:12:`, `<...tail:12>`): a message names the file as one can
  /// open it, however deep the folder. Nothing else in it is touched: a value a test compared
  /// may hold the same text, and a name written whole may itself end in its shortened form.
  static func restoringShortenedNames(in message: String) -> String {
    guard message.contains("...") else { return message }
    let names = shortened.withLock { $0 }
    var restored = message
    for case let (short, name?) in names where restored.contains(short + ":") {
      restored = restoring(short, as: name, in: restored)
    }
    return restored
  }

  /// `text` with each `short` followed by `:` and a digit replaced by `name`, unless it is the
  /// end of `name` written whole already.
  private static func restoring(_ short: String, as name: String, in text: String) -> String {
    let whole = name.hasSuffix(short) ? String(name.dropLast(short.count)) : nil
    var result = ""
    var rest = text[...]
    while let found = rest.range(of: short + ":") {
      let before = rest[..<found.lowerBound]
      let isPosition =
        rest[found.upperBound...].first?.isASCII == true
        && rest[found.upperBound...].first?.isNumber == true
      let isWholeName = whole.map { (result + before).hasSuffix($0) } ?? false
      result += before
      result += isPosition && !isWholeName ? name + ":" : String(rest[found])
      rest = rest[found.upperBound...]
    }
    return result + rest
  }
}
