import Foundation

#if canImport(Glibc)
  import Glibc
#endif

extension FileClient {
  /// Files under `root`, for real. Paths are relative to `root`; an absolute path, a `..`, or
  /// a symlink that leads outside `root` is refused. A write is atomic: the contents go to a
  /// temporary file beside the target, are flushed to disk, and the file is renamed over the
  /// target, so a crash leaves the old file or the new one, never half of one.
  public static func live(root: URL) -> FileClient {
    let files = LiveFiles(root: root)
    return FileClient(
      read: { try files.read($0) },
      write: { try files.write($0, $1) },
      append: { try files.append($0, $1) },
      list: { try files.list($0) },
      remove: { try files.remove($0) },
      exists: { try files.exists($0) })
  }
}

struct LiveFiles: Sendable {
  let root: URL

  init(root: URL) {
    self.root = root.standardizedFileURL.resolvingSymlinksInPath()
  }

  /// The file `path` names under the root, after checking it cannot leave it.
  func resolve(_ path: String, forWriting: Bool = false) throws -> URL {
    guard !path.isEmpty else { throw FileClientError("the path is empty") }
    guard !path.hasPrefix("/") else {
      throw FileClientError("\(path): absolute paths are refused; give a path under the root")
    }
    let parts = path.split(separator: "/", omittingEmptySubsequences: true)
    guard !parts.contains("..") else {
      throw FileClientError("\(path): '..' is refused; the path must stay under the root")
    }
    let url = parts.reduce(root) { $0.appendingPathComponent(String($1)) }
    // Whatever exists of the path, with its symlinks resolved, must still be under the root.
    let existing = forWriting ? url.deletingLastPathComponent() : url
    let resolved = existing.resolvingSymlinksInPath().path
    guard resolved == root.path || resolved.hasPrefix(root.path + "/") else {
      throw FileClientError("\(path): it leads outside the root (through a symlink)")
    }
    if forWriting, let destination = try? FileManager.default.destinationOfSymbolicLink(atPath: url.path) {
      let target = URL(fileURLWithPath: destination, relativeTo: url.deletingLastPathComponent())
        .standardizedFileURL.resolvingSymlinksInPath().path
      guard target.hasPrefix(root.path + "/") else {
        throw FileClientError("\(path): it leads outside the root (through a symlink)")
      }
    }
    return url
  }

  func read(_ path: String) throws -> [UInt8] {
    let url = try resolve(path)
    guard let data = FileManager.default.contents(atPath: url.path) else {
      throw FileClientError("\(path): \(reason(for: url))")
    }
    return Array(data)
  }

  func write(_ path: String, _ contents: [UInt8]) throws {
    let url = try resolve(path, forWriting: true)
    let directory = url.deletingLastPathComponent()
    try createDirectory(directory, for: path)
    let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
    let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
    guard descriptor >= 0 else { throw FileClientError("\(path): \(String(cString: strerror(errno)))") }
    do {
      try writeAll(contents, to: descriptor, path: path)
      guard fsync(descriptor) == 0 else { throw FileClientError("\(path): \(String(cString: strerror(errno)))") }
      close(descriptor)
    } catch {
      close(descriptor)
      unlink(temporary.path)
      throw error
    }
    guard rename(temporary.path, url.path) == 0 else {
      let message = String(cString: strerror(errno))
      unlink(temporary.path)
      throw FileClientError("\(path): \(message)")
    }
    // The rename is durable once the directory is flushed too.
    let directoryDescriptor = open(directory.path, O_RDONLY)
    if directoryDescriptor >= 0 {
      fsync(directoryDescriptor)
      close(directoryDescriptor)
    }
  }

  func append(_ path: String, _ contents: [UInt8]) throws {
    let url = try resolve(path, forWriting: true)
    try createDirectory(url.deletingLastPathComponent(), for: path)
    let descriptor = open(url.path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
    guard descriptor >= 0 else { throw FileClientError("\(path): \(String(cString: strerror(errno)))") }
    defer { close(descriptor) }
    try writeAll(contents, to: descriptor, path: path)
  }

  func list(_ path: String) throws -> [String] {
    let url = path.isEmpty || path == "." ? root : try resolve(path)
    do {
      return try FileManager.default.contentsOfDirectory(atPath: url.path)
        .filter { !$0.hasPrefix(".") }.sorted()
    } catch {
      throw FileClientError("\(path): \(reason(for: url))")
    }
  }

  func exists(_ path: String) throws -> Bool {
    FileManager.default.fileExists(atPath: try resolve(path).path)
  }

  func remove(_ path: String) throws {
    let url = try resolve(path)
    guard unlink(url.path) == 0 else { throw FileClientError("\(path): \(String(cString: strerror(errno)))") }
  }

  private func writeAll(_ contents: [UInt8], to descriptor: Int32, path: String) throws {
    var offset = 0
    while offset < contents.count {
      let written = contents.withUnsafeBytes { buffer in
        Glibc.write(descriptor, buffer.baseAddress! + offset, contents.count - offset)
      }
      guard written > 0 else { throw FileClientError("\(path): \(String(cString: strerror(errno)))") }
      offset += written
    }
  }

  private func createDirectory(_ directory: URL, for path: String) throws {
    do {
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    } catch {
      throw FileClientError("\(path): its directory cannot be created")
    }
  }

  private func reason(for url: URL) -> String {
    var isDirectory: ObjCBool = false
    if !FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) {
      return "no such file"
    }
    return isDirectory.boolValue ? "is a directory" : "cannot be read"
  }
}
