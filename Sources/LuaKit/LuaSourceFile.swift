import Foundation

/// Reads a Lua script from disk, saying exactly why when it cannot: no such file, a directory,
/// not readable, or not UTF-8 text (naming the first line that is not).
public enum LuaSourceFile {
  public struct Unreadable: Error, CustomStringConvertible {
    /// Why, in words that follow "cannot read FILE: ".
    public let reason: String
    public var description: String { reason }
  }

  public static func read(_ url: URL) throws(Unreadable) -> String {
    let bytes = try contents(of: url.path)
    if let text = String(validating: bytes, as: UTF8.self) { return text }
    var line = 1
    for lineBytes in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
      if String(validating: lineBytes, as: UTF8.self) == nil { break }
      line += 1
    }
    throw Unreadable(reason: "line \(line) is not UTF-8 text")
  }

  /// The file's bytes, whatever they are (a data file's strings may hold any byte), at most
  /// `maximum + 1` of them: a reader that takes `maximum` sees that there is more, and the rest
  /// is never read.
  public static func bytes(_ url: URL, maximum: Int) throws(Unreadable) -> [UInt8] {
    try contents(of: url.path, maximum: maximum)
  }

  /// The file's bytes, read with POSIX calls: Foundation's `FileManager` costs more to set up
  /// at launch than the read itself.
  private static func contents(
    of path: String, maximum: Int = .max - 1
  ) throws(Unreadable) -> [UInt8] {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw Unreadable(
        reason: errno == ENOENT || errno == ENOTDIR
          ? "no such file" : "it cannot be read (permission denied?)")
    }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      throw Unreadable(reason: "it cannot be read (permission denied?)")
    }
    guard status.st_mode & S_IFMT != S_IFDIR else {
      throw Unreadable(reason: "it is a directory; give the .lua file")
    }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while bytes.count <= maximum {
      let wanted = min(chunk.count, maximum + 1 - bytes.count)
      let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, wanted) }
      if count == 0 { return bytes }
      guard count > 0 else {
        if errno == EINTR { continue }
        throw Unreadable(
          reason: errno == EISDIR
            ? "it is a directory; give the .lua file" : "it cannot be read (permission denied?)")
      }
      bytes += chunk[..<count]
    }
    return bytes  // more than `maximum`: the caller says so
  }
}
