import Foundation

/// The files of `FileClient.inMemory`: a file system in miniature that answers as the live
/// client does, so that a test in memory sees what the app on disk would. Folders are made by
/// the writes under them and stay (a file written where a folder is, or under a file, fails in
/// the live client's words); a name of a write's temporary file is refused; hidden names are
/// not listed. (Its root is there from the start: the live client's is made at its first
/// write.)
final class InMemoryFiles: @unchecked Sendable {
  private let lock = NSLock()
  /// Contents by path (`notes/today.txt`).
  private var files: [String: [UInt8]] = [:]
  /// Every folder, by path; the root is "".
  private var folders: Set<String> = [""]

  init(_ files: [DataPath: [UInt8]]) {
    for (path, contents) in files {
      self.files[path.description] = contents
      addFolders(above: path)
    }
  }

  /// What is at a path.
  private enum Entry { case file, folder }

  private func entry(_ path: DataPath) -> Entry? {
    let name = path.isRoot ? "" : path.description
    if files[name] != nil { return .file }
    return folders.contains(name) ? .folder : nil
  }

  /// The error for a path with a file where a folder on its way should be, as the live client
  /// says it ("a/b: a is not a directory"); nil when there is none.
  private func fileOnTheWay(_ path: DataPath) -> FileClientError? {
    var prefix: [String] = []
    for component in path.components.dropLast() {
      prefix.append(component)
      if files[prefix.joined(separator: "/")] != nil {
        return FileClientError("\(path): \(component) is not a directory")
      }
    }
    return nil
  }

  private func addFolders(above path: DataPath) {
    var prefix: [String] = []
    for component in path.components.dropLast() {
      prefix.append(component)
      folders.insert(prefix.joined(separator: "/"))
    }
  }

  func read(_ path: DataPath) throws -> [UInt8] {
    try lock.withLock {
      if let error = fileOnTheWay(path) { throw error }
      switch entry(path) {
      case .file: return files[path.description]!
      case .folder: throw FileClientError("\(path): is a directory")
      case nil: throw FileClientError.notFound(path)
      }
    }
  }

  func write(_ path: DataPath, _ contents: [UInt8], appending: Bool) throws {
    try FileClient.refuseTemporaryName(path)
    try lock.withLock {
      guard !path.isRoot, entry(path) != .folder else {
        throw FileClientError("\(path): is a directory")
      }
      if let error = fileOnTheWay(path) { throw error }
      addFolders(above: path)
      let before = appending ? files[path.description] ?? [] : []
      files[path.description] = before + contents
    }
  }

  func list(_ path: DataPath) throws -> [String] {
    try lock.withLock {
      if let error = fileOnTheWay(path) { throw error }
      switch entry(path) {
      case .file: throw FileClientError("\(path): is not a directory")
      case nil: throw FileClientError.notFound(path)
      case .folder: break
      }
      let prefix = path.isRoot ? "" : path.description + "/"
      let names = (Array(files.keys) + folders.filter { !$0.isEmpty })
        .filter { $0.hasPrefix(prefix) }
        .map { String($0.dropFirst(prefix.count)) }
        .filter { !$0.isEmpty && !$0.contains("/") && !$0.hasPrefix(".") }
      return Set(names).sorted()
    }
  }

  func remove(_ path: DataPath) throws {
    try lock.withLock {
      guard !path.isRoot else {
        throw FileClientError("\(path): the root itself cannot be removed")
      }
      if let error = fileOnTheWay(path) { throw error }
      switch entry(path) {
      case .file: files[path.description] = nil
      case .folder: throw FileClientError("\(path): Is a directory")
      case nil: throw FileClientError.notFound(path)
      }
    }
  }

  func exists(_ path: DataPath) throws -> Bool {
    try lock.withLock {
      if let error = fileOnTheWay(path) { throw error }
      return entry(path) != nil
    }
  }
}
