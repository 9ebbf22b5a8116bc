import Foundation
import Glibc

/// What a path names, step by step, as the kernel resolves it: each symlink met on the way (a
/// folder's or the file's, by its own path), then the path it leads to. A save of that file, or
/// any of the links re-pointed, removed or made, changes what a read of the path gets: the file
/// watcher watches each.
///
/// A `..` goes up from where the links led (`lnk/../f.lua` with `lnk -> sub/deeper` is
/// `sub/f.lua`), as the kernel takes it. A loop of links, or more than 40, ends the route where
/// it is: a read fails there too.
struct SymlinkRoute: Equatable {
  /// The links met, in order, each by a path with no link in it.
  let links: [String]
  /// The path it leads to, with no link in it (as far as the links go).
  let file: String

  /// The route of the absolute `path`.
  init(to path: String) {
    var links: [String] = []
    var rest = Self.components(of: path)
    var resolved: [Substring] = []  // a path with no link in it: `..` goes up in it
    while !rest.isEmpty {
      let part = rest.removeFirst()
      if part == "." || part.isEmpty { continue }
      if part == ".." {
        if !resolved.isEmpty { resolved.removeLast() }
        continue
      }
      let next = "/" + (resolved + [part]).joined(separator: "/")
      guard links.count < 40, let target = Self.target(ofLink: next) else {
        resolved.append(part)
        continue
      }
      links.append(next)
      if target.hasPrefix("/") { resolved = [] }
      rest = Self.components(of: target) + rest
    }
    self.links = links
    file = "/" + resolved.joined(separator: "/")
  }

  /// Every path on the route: the links, then the file.
  var paths: [String] { links + [file] }

  private static func components(of path: String) -> [Substring] {
    path.split(separator: "/", omittingEmptySubsequences: true)
  }

  /// Where the link at `path` points, or nil when it is no link. Read whole, however long (a
  /// target of more than 1,024 bytes was cut, and the watcher then failed to start).
  static func target(ofLink path: String) -> String? {
    var status = stat()
    guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else { return nil }
    var size = max(Int(status.st_size) + 1, 256)
    while size <= 1 << 20 {
      var buffer = [UInt8](repeating: 0, count: size)
      let count = buffer.withUnsafeMutableBytes { bytes in
        readlink(path, bytes.baseAddress!.assumingMemoryBound(to: CChar.self), size)
      }
      guard count >= 0 else { return nil }
      if count < size { return String(decoding: buffer[0..<count], as: UTF8.self) }
      size *= 2  // it grew since lstat
    }
    return nil
  }
}
