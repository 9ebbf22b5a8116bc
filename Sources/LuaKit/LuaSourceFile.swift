import Foundation

/// Reads a Lua script from disk, saying exactly why when it cannot: no such file, a directory,
/// not readable, or not UTF-8 text (naming the first line that is not).
public enum LuaSourceFile {
  /// Why a file could not be read; its `description` is `reason`.
  public struct Unreadable: Error, CustomStringConvertible {
    /// Why, in words that follow "cannot read FILE: ".
    public let reason: String
    public var description: String { reason }
  }

  /// The text of the script at `url`. Throws `Unreadable` when `bytes(of:)` does, or when the file
  /// is not UTF-8, naming the first line that is not.
  public static func read(_ url: URL) throws(Unreadable) -> String {
    let bytes = try bytes(of: url)
    if let text = String(validating: bytes, as: UTF8.self) { return text }
    var line = 1
    for lineBytes in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
      if String(validating: lineBytes, as: UTF8.self) == nil { break }
      line += 1
    }
    throw Unreadable(reason: "line \(line) is not UTF-8 text")
  }

  /// The most bytes a script or data file read here may have: 64 MiB, a feature VM's default
  /// memory cap (the text is compiled in a VM, which could not hold more).
  public static let maximumSize = 64 << 20

  /// The file's bytes, which is what Lua compiles (a string literal may hold any byte, as
  /// `lua5.4` reads it; `read` is for tools that want the text), read with POSIX calls:
  /// Foundation's `FileManager` costs more to set up at launch than the read itself.
  ///
  /// Only a regular file is read. What `path` names is looked at before it is opened, and
  /// opened without waiting (`O_NONBLOCK`), so a FIFO with no writer, a device or a socket is
  /// refused at once instead of blocking the host; what was opened is checked again.
  public static func bytes(of url: URL, limit: Int = maximumSize) throws(Unreadable) -> [UInt8] {
    // A URL of a folder (`f.lua/` given) is opened as one, as the kernel opens that path: its
    // `path` drops the slash, and `eval f.lua/` read the file.
    let path = url.hasDirectoryPath ? url.path + "/" : url.path
    var status = stat()
    guard stat(path, &status) == 0 else { throw failure(errno) }
    try requireRegular(status)
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
    guard descriptor >= 0 else { throw failure(errno) }
    defer { close(descriptor) }
    guard fstat(descriptor, &status) == 0 else { throw failure(errno) }
    try requireRegular(status)
    let tooLarge = { (size: Int) in
      Unreadable(reason: "it is \(size) bytes, more than the \(limit) a file read here may have")
    }
    guard Int(status.st_size) <= limit else { throw tooLarge(Int(status.st_size)) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let wanted = min(chunk.count, limit + 1 - bytes.count)
      let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, wanted) }
      if count == 0 { return bytes }
      guard count > 0 else {
        if errno == EINTR { continue }
        throw failure(errno)
      }
      bytes += chunk[..<count]
      guard bytes.count <= limit else { throw tooLarge(bytes.count) }  // it grew
    }
  }

  /// The system's reason, in the words of the others here: each code its own (a name too long,
  /// or a link loop, was said to be "permission denied?").
  private static func failure(_ code: Int32) -> Unreadable {
    switch code {
    case ENOENT, ENOTDIR: Unreadable(reason: "no such file")
    case EACCES, EPERM: Unreadable(reason: "permission denied")
    case ELOOP:
      Unreadable(reason: "too many symbolic links on the way (a loop?)")
    case ENAMETOOLONG: Unreadable(reason: "its name is too long for the system")
    case EISDIR: Unreadable(reason: "it is a directory; give the .lua file")
    default: Unreadable(reason: String(cString: strerror(code)))
    }
  }

  /// Refuses a directory, a FIFO, a device or a socket, saying which.
  private static func requireRegular(_ status: stat) throws(Unreadable) {
    switch status.st_mode & S_IFMT {
    case S_IFREG: return
    case S_IFDIR: throw Unreadable(reason: "it is a directory; give the .lua file")
    case S_IFIFO:
      throw Unreadable(reason: "it is a FIFO (named pipe), not a regular file; give a file")
    case S_IFCHR, S_IFBLK:
      throw Unreadable(reason: "it is a device, not a regular file; give a file")
    case S_IFSOCK: throw Unreadable(reason: "it is a socket, not a regular file; give a file")
    default: throw Unreadable(reason: "it is not a regular file; give a file")
    }
  }
}
